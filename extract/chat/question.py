"""The assistant's question a short answer binds to (answers.py): the assistant turn before
each user turn of a session (``with_questions``), its last question, the options it lists
or offers, and the option the user picks."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from spacy.tokens import Doc, Token

from extract.chat.answer_words import (
    _ALT_ZH,
    _CIRCLED,
    _CLAUSE,
    _MARKER,
    _OPTION_END,
    _ORDINAL_EN,
    _PICK_EN,
    _PICK_ZH,
    _PUNCT,
    _SENT_END,
    _TAG_ZH,
    _WORD,
    _ZH_DIGITS,
)
from extract.types import MessageRecord
from text.zh_words import cut_zh


def _question(asked: str) -> str | None:
    """The assistant turn's last question (a sentence ending with a question mark, or a
    Chinese one with an interrogative particle); None when it asks nothing."""
    text = asked.strip()
    ends = [m.end() for m in _SENT_END.finditer(text)]
    starts = [0, *ends]
    sents = [text[s:e] for s, e in zip(starts, [*ends, len(text)], strict=True)]
    for s in reversed(sents):
        s = s.strip()
        if s.endswith(("?", "？")) or (_han_end(s) and s.rstrip("。.").endswith(("吗", "呢"))):
            return s
    return None


def _han_end(s: str) -> bool:
    """The sentence ends with a Chinese character (before its full stop)."""
    return bool(s) and "\u4e00" <= s.rstrip("。.")[-1:] <= "\u9fff"


def _label_index(label: str) -> int:
    if label in _CIRCLED:
        return _CIRCLED.index(label) + 1
    if label.isdigit():
        return int(label)
    return ord(label.lower()) - ord("a") + 1


def listed_options(asked: str) -> tuple[str, ...]:
    """Options the assistant listed with markers (1. 2. / A) B) / ① ②), in order; only a
    run of at least two that counts up from its first."""
    found = [
        (m.start("label"), m.end(), _label_index(m.group("label"))) for m in _MARKER.finditer(asked)
    ]
    run: list[tuple[int, int, int]] = []
    for item in found:
        if run and item[2] == run[-1][2] + 1:
            run.append(item)
        elif item[2] == 1:
            run = [item]
    if len(run) < 2:
        return ()
    out = []
    for k, (_s, e, _n) in enumerate(run):
        stop = run[k + 1][0] if k + 1 < len(run) else len(asked)
        piece = asked[e:stop]
        cut = _OPTION_END.search(piece)
        piece = piece[: cut.start()] if cut else piece
        out.append(_PUNCT.sub("", piece))
    return tuple(o for o in out) if all(out) else ()


def _alternatives_zh(question: str) -> tuple[str, ...]:
    """ "X还是Y？" and "X、Y还是Z？": the alternatives, the first cut to the length (in words)
    of the last, since what precedes it is the question's frame."""
    body = _TAG_ZH.sub("", _PUNCT.sub("", question))
    body = _CLAUSE.split(body)[-1] if _ALT_ZH in _CLAUSE.split(body)[-1] else body
    if _ALT_ZH not in body:
        return ()
    left, _, last = body.rpartition(_ALT_ZH)
    last = _PUNCT.sub("", last)
    items = [p for p in left.split("、")]
    words = len(cut_zh(last)) or 1
    head = cut_zh(items[0])
    items[0] = "".join(w for w, _f in head[-words:])
    opts = [_PUNCT.sub("", p) for p in [*items, last]]
    return tuple(opts) if all(opts) and len(opts) >= 2 else ()


def choice_topic_zh(question: str, options: tuple[str, ...]) -> str:
    """What a choice question is about: the nouns before its first option and before the
    addressee ("<X>您倾向 A 还是 B？" -> X), "" when there are none."""
    pieces = [
        p
        for sent in _SENT_END.split(question)
        for p in _CLAUSE.split(sent)
        if options and options[0] in p
    ]
    body = pieces[-1] if pieces else ""
    at = body.find(options[0]) if options else -1
    if at <= 0:
        return ""
    words = [(w, f) for w, f in cut_zh(body[:at]) if w.strip()]
    lead: list[str] = []
    for w, f in words:
        if f[:1] not in ("n", "v") or w in ("请问", "想问"):
            break
        if f[:1] != "n":
            return ""  # a verb first: a frame, no topic ("选 A 还是 B")
        lead.append(w)
    return "".join(lead)


def _alternatives_en(doc: Doc) -> tuple[str, ...]:
    """ "X or Y?": the conjuncts joined by "or"."""
    for t in doc:
        if t.lower_ == "or" and t.dep_ == "cc":
            first = t.head
            conj = [c for c in first.children if c.dep_ == "conj"]
            if not conj:
                continue
            chain = [first]
            while conj:
                chain.append(conj[0])
                conj = [c for c in conj[0].children if c.dep_ == "conj"]
            return tuple(_conjunct(c, chain) for c in chain)
    return ()


def _conjunct(tok: Token, chain: list[Token]) -> str:
    """A conjunct's words without the conjuncts and conjunctions hanging from it."""
    skip: set[int] = set()
    for c in tok.children:
        if c.dep_ in ("conj", "cc") or c in chain:
            skip |= {x.i for x in c.subtree}
    words = [x for x in tok.subtree if x.i not in skip and not x.is_punct]
    return " ".join(x.text for x in words)


def _zh_number(s: str) -> int | None:
    if s.isdigit():
        return int(s)
    if s == "十":
        return 10
    if len(s) == 1 and s in _ZH_DIGITS:
        return _ZH_DIGITS.index(s) + 1
    if len(s) == 2 and s[0] == "十" and s[1] in _ZH_DIGITS:
        return 10 + _ZH_DIGITS.index(s[1]) + 1
    return None


def _ordinal(answer: str, zh: bool, doc: Doc | None) -> int | None:
    """The position the user picks (1-based; -1 the last), when the answer names one."""
    if zh:
        m = _PICK_ZH.search(answer)
        if not m:
            return None
        if m.group("first"):
            return 1
        if m.group("last"):
            return -1
        return _zh_number(m.group("n") or m.group("q") or m.group("s") or "")
    m = _PICK_EN.search(answer.strip())
    if m:
        return int(m.group("n") or m.group("d"))
    for t in doc or ():
        n = _ORDINAL_EN.get(t.lower_)
        if n is not None and (t.tag_ in ("JJ", "RB", "CD") or t.dep_ in ("amod", "ROOT")):
            return n
    return None


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2 or not w.isascii()}


def _named_option(answer: str, options: Sequence[str]) -> int | None:
    """The option the answer names: the one sharing the most of its own words with it
    (words every option has do not tell them apart); None on a tie or no match."""
    said = _words(answer)
    common = set.intersection(*(_words(o) for o in options)) if options else set()
    scores = [len((_words(o) - common) & said) for o in options]
    best = max(scores, default=0)
    if best == 0 or scores.count(best) > 1:
        return None
    return scores.index(best) + 1


def _picked(answer: str, options: Sequence[str], zh: bool, doc: Doc | None) -> str | None:
    n = _ordinal(answer, zh, doc)
    if n is None:
        n = _named_option(answer, options)
    if n is None or n == 0 or n > len(options):
        return None
    return options[n - 1] if n > 0 else options[-1]


@dataclass(frozen=True)
class Turn:
    """A chat turn as the question finder needs it (an assistant turn with its text)."""

    message_id: str
    session_id: str
    role: str
    timestamp: datetime
    content: str | None = None


def with_questions(
    msgs: Sequence[MessageRecord], turns: Iterable[Turn] | None = None
) -> list[MessageRecord]:
    """Each user chat turn of `msgs` with the turn just before it in its session among
    `msgs` and `turns` (the stored turns around them): the assistant's as `asked`, the
    user's own as `said_before`. In the order given."""
    every = {t.message_id: t for t in turns or ()}
    for m in msgs:
        if m.event_type == "message" and m.message_id not in every:
            every[m.message_id] = Turn(m.message_id, m.session_id, m.role, m.timestamp, m.content)
    last: dict[str, Turn] = {}
    before: dict[str, Turn] = {}
    for t in sorted(every.values(), key=lambda t: (t.timestamp, t.message_id)):
        if t.role not in ("user", "assistant"):
            continue
        prev = last.get(t.session_id)
        if t.role == "user" and prev is not None and prev.content:
            before[t.message_id] = prev
        last[t.session_id] = t
    out = []
    for m in msgs:
        q = before.get(m.message_id) if m.role == "user" and m.event_type == "message" else None
        if q is not None and q.role == "assistant":
            m = replace(m, asked=q.content, asked_id=q.message_id)
        elif q is not None:
            m = replace(m, said_before=q.content)
        out.append(m)
    return out


__all__ = ["Turn", "choice_topic_zh", "listed_options", "with_questions"]
