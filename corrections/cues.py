"""Change cues: the words by which a statement says that something changed ("switched to",
"改成"), that it went back to an earlier value ("back to", "改回"), or how things are now
("these days", "现在"). Chat extraction marks corrections with them (extract/chat), and
conflict detection reads them (conflicts.py). Grammar words only."""

from __future__ import annotations

from text import rx

# explicit correction cues, in a Fact's own words (extract/chat marks corrections with them)
CUE_EN = rx.compile(
    r"\b(?:actually|instead|(?:switch(?:es|ed)?|mov(?:es|ed)|chang(?:es|ed))\s+"
    r"(?:to|from|over|it\s+to)|"
    # a quantity changed: "<verb> X to <number>"
    r"(?:bump|increas|rais|reduc|lower|decreas|cut|drop)\w*\s+(?:\S+\s+){0,4}?to\s+\d|"
    r"make\s+that|no\s+longer|from\s+now\s+on|back\s+to|"
    r"(?:go|goes|going|went|switch(?:ed)?|chang(?:e|ed|ing)|mov(?:e|ed))\s+(?:it\s+)?back|"
    r"revert(?:ed|ing)?\s+to|as\s+before)\b",
    rx.IGNORECASE,
)
CUE_ZH = rx.compile(
    r"换成|改成|改为|改到|换到|更正|不再|搬到|改在|挪到|改用|换用|改回|换回|调回|挪回|搬回|"
    r"回到原|还是原来|按原来|恢复原"
)
# a return to an earlier value ("back to Y", "改回 Y", "as before"): the value a change
# replaced is the one that holds again
RETURN_EN = rx.compile(
    r"\b(?:back\s+to|(?:go|goes|going|went|switch(?:ed)?|chang(?:e|ed|ing)|mov(?:e|ed))\s+"
    r"(?:it\s+|them\s+)?back|revert(?:ed|ing)?\s+to|as\s+before|the\s+old\s+one|again)\b",
    rx.IGNORECASE,
)  # "again" only restores with a change cue of its own ("actually, A again")
RETURN_ZH = rx.compile(r"改回|换回|调回|挪回|搬回|回到原|还是原来|按原来|恢复原")
# adverbs of the present: a statement of how things are now, which may replace how they were
NOW_EN = rx.compile(
    r"\b(?:these\s+days|nowadays|now|currently|from\s+now\s+on|at\s+the\s+moment)\b",
    rx.IGNORECASE,
)
NOW_ZH = rx.compile(r"现在|如今|目前|眼下|从现在起|以后|今后")


def has_cue(text: str) -> bool:
    """Whether ``text`` itself says that something changed."""
    return bool(CUE_ZH.search(text) or CUE_EN.search(text))


def is_weak(text: str) -> bool:
    """Only an adverb of the present marks ``text`` as a change ("现在去 Y", "these days Y")."""
    return bool(NOW_ZH.search(text) or NOW_EN.search(text))


def returns(text: str) -> bool:
    """Whether ``text`` goes back to an earlier value ("back to Y", "还是改回 Y")."""
    return bool(RETURN_ZH.search(text) or RETURN_EN.search(text))


__all__ = [
    "CUE_EN",
    "CUE_ZH",
    "NOW_EN",
    "NOW_ZH",
    "RETURN_EN",
    "RETURN_ZH",
    "has_cue",
    "is_weak",
    "returns",
]
