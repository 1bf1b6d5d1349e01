"""Chat-turn extraction: a user turn cut into clauses (``segments``), each clause read for
its structure (``clause_grammar``, ``zh_grammar``), whose fact it is (``subject*``,
``owner``, ``person_attrs``), its slot, kind and wording (``clause``, ``slots``,
``wording``, ``lexicon``, ``tokens``), a short answer bound to the assistant's question
(``answer*``, ``question``), and the FactDrafts and Rejections assembled (``facts``,
``clause_fact``). May import text, packs, extract.types and the change
cues (corrections.cues); nothing of events, consolidation or vectors."""
