"""Extraction: what a Message says, as Fact drafts. ``chat`` reads a chat turn (its clauses,
whose fact each is, slots, wording, short answers bound to the assistant's question),
``events`` reads behaviour events, ``nlp`` loads the spaCy pipelines with the packs'
gazetteers, and ``types`` holds the records extraction shares with consolidation and
graph/. Pure logic, no database; may import corrections, packs, text and core."""
