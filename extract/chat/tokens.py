"""Token-level helpers shared by the steps of chat fact extraction (facts.py): a
clause's tokens, its subject, imperatives, first person, money, content.
"""

from __future__ import annotations

from spacy.tokens import Doc, Token

from corrections.cues import CUE_ZH
from extract.chat import clause_grammar as cg
from extract.chat.lexicon import _CONJ_EN, _NON_WORD
from extract.nlp import ents_in
from extract.types import Kind
from text import rx

_MAX_LEADS = 16  # leading fillers/markers stripped from one clause ("and and and ...")


def _tokens(doc: Doc, start: int, end: int) -> list[Token]:
    span = doc.char_span(start, end, alignment_mode="expand") if end > start else None
    return list(span) if span is not None else []


def _content_tokens(toks: list[Token]) -> list[Token]:
    """Tokens after leading conjunctions, punctuation and interjections."""
    i = 0
    while i < len(toks) and (
        toks[i].is_punct or toks[i].dep_ in ("cc", "intj", "punct") or toks[i].lower_ in _CONJ_EN
    ):
        i += 1
    return toks[i:]


def _is_imperative(toks: list[Token]) -> bool:
    toks = _content_tokens(toks)
    while toks and toks[0].lower_ in ("please", "just", "also", "ideally", "preferably"):
        toks = toks[1:]
    if not toks:
        return False
    first = toks[0]
    if first.lower_ in ("do", "never", "always") and len(toks) > 1:
        nxt = toks[2] if len(toks) > 2 and toks[1].lower_ in ("n't", "not") else toks[1]
        return nxt.tag_ == "VB"
    if first.lower_ == "let" and len(toks) > 1 and toks[1].lower_ in ("'s", "us"):
        return False  # "let's ..." is a suggestion, not an instruction
    # a bare verb is an imperative only as the main verb ("and motivate me" is a coordination)
    return (
        first.tag_ == "VB"
        and first.dep_ == "ROOT"
        and not any(c.dep_ in ("nsubj", "nsubjpass") for c in first.children)
    )


def _implied_subject(toks: list[Token]) -> str | None:
    """The verb prefix for a clause that drops its "I": "Just got new shoes" -> ""."""
    toks = _content_tokens(toks)
    if not toks or _has_subject(toks):
        return None
    i = 0
    while i < len(toks) - 1 and toks[i].tag_ == "RB":
        i += 1
    tag, low = toks[i].tag_, toks[i].lower_
    if low in ("gonna", "gon") or tag == "VBG":  # spaCy splits "gonna" into "gon" + "na"
        return "is"
    if tag == "VBN" and toks[i].dep_ == "ROOT":
        return "has"
    if tag == "VBD" and toks[i].dep_ == "ROOT":
        return ""
    return None


def _has_subject(toks: list[Token]) -> bool:
    ids = {t.i for t in toks}
    return any(
        t.dep_ in ("nsubj", "nsubjpass", "expl", "csubj")
        and t.head.i in ids
        and t.head.pos_ in ("VERB", "AUX")
        for t in toks
    )


def _money(doc: Doc, start: int, end: int) -> tuple[str, str] | None:
    for ent in ents_in(doc, start, end):
        if ent.label_ == "MONEY":
            return ent.id_ or ent.text, ent.text
    return None


def _first_person(tok: Token) -> bool:
    return tok.lower_ in (
        "i",
        "me",
        "my",
        "mine",
        "myself",
        "we",
        "us",
        "our",
        "ours",
        "ourselves",
    ) and tok.tag_ in ("PRP", "PRP$")


def _coord_imperative(toks: list[Token]) -> bool:
    """A predicate coordinated with an instruction: "…, and always add X at the end"."""
    coord = cg.coordinated_predicate_en(toks)
    return coord is not None and cg.shared_subject_en(coord) is None and not _lets(toks)


def _key(kind: Kind, slot: str | None, content: str) -> str:
    if slot:
        return f"{kind}:{slot}"
    norm = _NON_WORD.sub("", content.lower())
    return f"{kind}:{norm}"


def _lets(toks: list[Token]) -> bool:
    """A "let's …" suggestion: the speaker's own plan."""
    toks = _content_tokens(toks)
    return len(toks) > 1 and toks[0].lower_ == "let" and toks[1].lower_ in ("'s", "us")


_DIGIT = rx.compile(r"\d")
_DIGITS_OR_LATIN = rx.compile(r"\d|[A-Za-z]{2,}")
_CONSTRAINT_ZH = rx.compile(r"必须|需要|只要|只能|只|尽量|一定要|最好|至少|最多|不要|别")


def _has_content_zh(text: str) -> bool:
    """The same for Chinese: a number, a Latin name, a constraint word or a change verb."""
    return bool(_DIGITS_OR_LATIN.search(text) or _CONSTRAINT_ZH.search(text) or CUE_ZH.search(text))
