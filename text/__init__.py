"""Text, not memory: language detection, numbers and values (``lang``, and the ``Lang``
type), time cues (``timecues``, ``time_window``), Chinese words (``zh_words``), and the
linear-time regex engine every pattern of the engine is compiled with (``rx``). The ground
floor of extraction: it imports only core, so the packs and every stage build on it."""
