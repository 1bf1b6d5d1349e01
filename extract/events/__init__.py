"""Behaviour evidence: events (filter, view, click, favourite, dwell, skip, search,
purchase) parsed into signals (``signals``) and aggregated per user into implicit
FactDrafts (``behaviour``, with ``drafts``, ``traits`` and ``items``). May import
text, packs and extract.types."""
