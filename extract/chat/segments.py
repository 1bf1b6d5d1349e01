"""Segmentation of a chat turn into clauses (facts.py): sentences, then commas,
semicolons and conjunctions; fragments glued back to the clause next to them.
"""

from __future__ import annotations

from dataclasses import dataclass

from spacy.tokens import Doc

from corrections.carry import KEEP_EN
from extract.chat import clause_grammar as cg
from extract.chat import zh_grammar
from extract.chat.clause import _greeting, _kind_zh, _slot, _strip
from extract.chat.lexicon import (
    _CONJ_EN,
    _CONJ_ZH,
    _FIRST_PERSON_ZH,
    _HARD_ZH,
    _PRED_START_ZH,
    _SENT_END_ZH,
    _SOFT_ZH,
    _SUBORD_EN,
    _SUBORD_ZH,
)
from extract.chat.subject_zh import (
    anaphor_led_zh,
    noun_led_zh,
    speaker_modal_zh,
    subject_zh,
    subjectless_zh,
)
from extract.chat.tokens import (
    _content_tokens,
    _has_content_zh,
    _has_subject,
    _is_imperative,
    _tokens,
)
from extract.nlp import doc_text
from extract.types import Lang
from text.zh_words import cut_zh

# --- segmentation ---------------------------------------------------------------------------


# A clause never grows past this many characters (longer runs are cut, pieces are not glued
# past it): every step on a clause then costs at most a bounded amount, so a message of any
# shape is extracted in time linear in its length.
MAX_CLAUSE_CHARS = 600


@dataclass
class _Piece:
    start: int  # char offsets into doc_text(doc)
    end: int
    sent: int
    hard: bool = False  # a ";" before it: never glued to the previous piece
    open: bool = False  # subordinate clause still waiting for its main clause


def _pieces_zh(doc: Doc) -> list[_Piece]:
    pieces: list[_Piece] = []
    start, sent, hard = 0, 0, False

    def close(end: int) -> None:
        if doc_text(doc)[start:end].strip():
            pieces.append(_Piece(start, end, sent, hard))

    for tok in doc:
        chars = set(tok.text)
        if chars <= _SENT_END_ZH | _SOFT_ZH | _HARD_ZH | {" "}:
            close(tok.idx + len(tok.text) if chars & _SENT_END_ZH else tok.idx)
            start = tok.idx + len(tok.text)
            hard = bool(chars & _HARD_ZH)
            if chars & _SENT_END_ZH:
                sent += 1
        elif tok.text in _CONJ_ZH and doc_text(doc)[start : tok.idx].strip():
            close(tok.idx)
            start, hard = tok.idx, False
    close(len(doc_text(doc)))
    return pieces


def _pieces_en(doc: Doc) -> list[_Piece]:
    pieces: list[_Piece] = []
    for si, sent in enumerate(doc.sents):
        start, hard = sent.start_char, False
        for tok in sent:
            if tok.i == sent.start:
                continue
            if tok.text in (";", ",", "—", "–") and tok.i != sent.end - 1:
                if doc_text(doc)[start : tok.idx].strip():
                    pieces.append(_Piece(start, tok.idx, si, hard))
                start, hard = tok.idx + len(tok.text), tok.text == ";"
            elif tok.lower_ in _CONJ_EN and doc_text(doc)[start : tok.idx].strip():
                pieces.append(_Piece(start, tok.idx, si, hard))
                start, hard = tok.idx, False
        if doc_text(doc)[start : sent.end_char].strip():
            pieces.append(_Piece(start, sent.end_char, si, hard))
    return pieces


def _standalone_en(doc: Doc, p: _Piece) -> bool:
    toks = _content_tokens(_tokens(doc, p.start, p.end))
    if not toks:
        return False
    text = doc_text(doc)[p.start : p.end]
    if _greeting(text, "en") or text.rstrip().endswith("?"):
        return True
    if toks[0].tag_ in ("WDT", "WP", "WP$") or toks[0].lower_ in _SUBORD_EN:
        return False
    return (
        _has_subject(toks)
        or _is_imperative(toks)
        or cg.coordinated_predicate_en(toks) is not None
        or _slot(doc, p.start, p.end, "en")[0] is not None
    )


def _standalone_zh(doc: Doc, p: _Piece) -> bool:
    text = _strip(doc, p.start, p.end, "zh")[2]
    if (
        not text
        or _greeting(text, "zh")
        or doc_text(doc)[p.start : p.end].rstrip().endswith(("?", "？"))
    ):
        return bool(text)
    if _SUBORD_ZH.match(text) or zh_grammar.keep_clause(text):
        return False  # "日期不变": binds to the change it qualifies
    if anaphor_led_zh(text) and _slot(doc, p.start, p.end, "zh")[0] is None and len(text) > 4:
        return True  # "她的 A 是 Z": its own subject, the one named before
    if zh_grammar.own_subject(text) and (_has_content_zh(text) or zh_grammar.implied_user(text)):
        return True  # "X 在周一上午": its own subject, and the user's matter
    return bool(
        _FIRST_PERSON_ZH.search(text)
        or _PRED_START_ZH.match(text)
        or _kind_zh(text)[0] != "fact"
        or _slot(doc, p.start, p.end, "zh")[0]
    )


def _capped(doc: Doc, pieces: list[_Piece]) -> list[_Piece]:
    """Pieces longer than MAX_CLAUSE_CHARS cut at the last space within the limit (or at it)."""
    text = doc_text(doc)
    out: list[_Piece] = []
    for p in pieces:
        start, hard = p.start, p.hard
        while p.end - start > MAX_CLAUSE_CHARS:
            cut = text.rfind(" ", start + 1, start + MAX_CLAUSE_CHARS)
            cut = cut if cut > start else start + MAX_CLAUSE_CHARS
            out.append(_Piece(start, cut, p.sent, hard))
            start, hard = cut, True
        out.append(_Piece(start, p.end, p.sent, hard))
    return out


def _clauses(doc: Doc, lang: Lang) -> list[_Piece]:
    """Pieces glued back so every clause carries information of its own."""
    pieces = _capped(doc, _pieces_zh(doc) if lang == "zh" else _pieces_en(doc))
    standalone = _standalone_zh if lang == "zh" else _standalone_en
    out: list[_Piece] = []
    for p in pieces:
        text = doc_text(doc)[p.start : p.end].strip()
        p.open = (
            text.split(" ", 1)[0].lower() in _SUBORD_EN
            if lang == "en"
            else bool(_SUBORD_ZH.match(text))
        )
        keep = _keep_only(doc, p, lang)
        if keep and (not out or out[-1].sent != p.sent):
            p.open = True  # "Same time, but …": binds to the change after it
        prev = out[-1] if out and out[-1].sent == p.sent and (keep or not p.hard) else None
        if prev is not None and p.end - prev.start > MAX_CLAUSE_CHARS:
            prev = None
        filler = prev is not None and not _strip(doc, prev.start, prev.end, lang)[2]
        if prev is not None and _greeting(doc_text(doc)[prev.start : prev.end], lang):
            prev = None  # keep "好的" / "Thanks" apart from what follows
        if (
            prev is not None
            and lang == "zh"
            and not (prev.open or filler)
            and cg.parallel_statements_zh(
                _strip(doc, prev.start, prev.end, lang)[2], _strip(doc, p.start, p.end, lang)[2]
            )
        ):
            prev = None  # "A 是 X，B 在 Y": each piece states something about its own subject
        bound = (
            lang == "zh"
            and prev is not None
            and (
                _bound_zh(doc, prev, p)
                or _of_prev_zh(doc, prev, p)
                or _of_object_zh(doc, prev, p)
                or _same_arrangement_zh(doc, prev, p)
            )
        )
        if prev is not None and (prev.open or filler or bound or not standalone(doc, p)):
            prev.end, prev.open = p.end, p.open and prev.open
        else:
            out.append(p)
    return out


def _keep_only(doc: Doc, p: _Piece, lang: Lang) -> bool:
    """A piece that only says a part stays as it was ("same time", "日期不变"): it binds to
    the change it qualifies, before or after it, across a semicolon too."""
    text = _strip(doc, p.start, p.end, lang)[2]
    if lang == "zh":
        return zh_grammar.keep_clause(text)
    parts = [part for part in text.split(",") if part.strip()]
    return 0 < len(text.split()) <= _KEEP_MAX_WORDS and all(KEEP_EN.search(x) for x in parts)


_KEEP_MAX_WORDS = 6


def _bound_zh(doc: Doc, prev: _Piece, p: _Piece) -> bool:
    """A numeric limit with no subject or slot of its own qualifies the goal before it."""
    text = _strip(doc, p.start, p.end, "zh")[2]
    return (
        zh_grammar.bound_to_goal(doc_text(doc)[prev.start : prev.end], text)
        and not _slot(doc, p.start, p.end, "zh")[0]
    )


def _of_prev_zh(doc: Doc, prev: _Piece, p: _Piece) -> bool:
    """A clause opening with a bare noun ("A 不太好") after one about a person or an animal
    of the user's world states an attribute of that one: bound to it."""
    if not noun_led_zh(_strip(doc, p.start, p.end, "zh")[2]):
        return False
    about = subject_zh(_strip(doc, prev.start, prev.end, "zh")[2])
    return about is not None and about.kind in ("person", "pet")


def _same_arrangement_zh(doc: Doc, prev: _Piece, p: _Piece) -> bool:
    """A piece with no subject of its own ("每<period>V", "在<place>") after one about a thing
    or an arrangement, not the user nor a person ("<X>：每次 V 3 <unit>", "<X>约在<day>"): more
    of that one arrangement, which is not split."""
    before = _strip(doc, prev.start, prev.end, "zh")[2]
    text = _strip(doc, p.start, p.end, "zh")[2]
    if _FIRST_PERSON_ZH.search(before) or _FIRST_PERSON_ZH.search(text):
        return False
    if not before or subject_zh(before) is not None or speaker_modal_zh(before):
        return False  # "不要 X，…": the speaker's wish, each one its own
    words = [f for w, f in cut_zh(doc_text(doc)[p.start : p.end]) if w.strip()]
    if not words or words[0][:1] == "c" or _slot(doc, p.start, p.end, "zh")[0] is not None:
        return False  # "但 …": a contrast; "预算 …": an attribute of its own
    return subjectless_zh(text) or _place_phrase_zh(text)


def _place_phrase_zh(text: str) -> bool:
    """ "在<place>" and nothing after it: where the clause before happens."""
    words = [(w, f) for w, f in cut_zh(text) if w.strip()]
    return (
        len(words) >= 2
        and words[0][0] in ("在", "于")
        and all(f[:1] in ("n", "s", "f", "j") or f == "eng" for _w, f in words[1:])
    )


def _of_object_zh(doc: Doc, prev: _Piece, p: _Piece) -> bool:
    """A clause opening straight with its verb after one that ends with a thing (its
    object) goes on about that thing ("用 X，跑在 Y 上", "买了 X，放在 Y"): bound to it,
    not a new statement with the user as its subject."""
    words = [(w, f) for w, f in cut_zh(_strip(doc, p.start, p.end, "zh")[2]) if w.strip()]
    if not words or words[0][1][:1] != "v":
        return False
    before = [
        (w, f)
        for w, f in cut_zh(_strip(doc, prev.start, prev.end, "zh")[2])
        if w.strip() and f != "x"
    ]
    if not before or not (before[-1][1][:1] == "n" or before[-1][1] == "eng"):
        return False
    return not any(w in _COPULAS_ZH for w, _f in before)  # "我是 X，住在 Y": X is no object


_COPULAS_ZH = frozenset({"是", "叫", "当", "做", "成为", "担任"})
