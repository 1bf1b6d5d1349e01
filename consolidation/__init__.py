"""Consolidation of stored Facts: Topics assigned (``topics``, with ``topic_groups``,
``topic_filing`` and ``topic_names``), Summaries composed (``summaries``,
``summary_text``), and the time decay that ranks and retires Summaries (``decay``). Pure:
graph/ reads the Facts and writes what comes back. May import text, packs and extract
(its records, ``extract.types``)."""
