"""Text, not memory: language detection, numbers and values (``lang``), time cues
(``timecues``, ``time_window``), Chinese words (``zh_words``), the spaCy pipelines
(``nlp``), and the linear-time regex engine every pattern of extract/ is compiled with
(``rx``). May import extract.types; ``nlp`` alone also reads the domain packs
(extract.packs) for its gazetteers. The other modules import nothing else of extract, so
the packs build on them."""
