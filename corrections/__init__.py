"""Corrections: what a new Fact does to the user's older ones, when it is written
(service.pipeline, graph.fact_writes). The words by which a statement says something changed
(``cues``), the older Fact a correction or a new slot value replaces (``conflicts``, with
``values``), the parts a partial change carries over (``carry``), and the things a change
says left the user's life (``endings``). May import text and packs; extract/ marks
corrections with its ``cues``."""
