"""Implicit conflicts: which older Fact a correction or a new slot value replaces.

A Fact that carries a correction cue or sets a slot may replace an older active Fact of
the same user that has no slot in common ("planning a cruise to X" … "let's do Y
instead"). The older Fact is a candidate when it is embedding-near (cosine at least
``threshold``), of the same kind and polarity or sharing the attribute head, earlier, from
other Messages, and when the two state *different values of one type*: each has a value
(a name or a number) the other lacks, and some value on each side is of the same type. Of
the candidates the best one is taken, ranked by the fact cosine plus the cosine of the
values themselves ("Y" against "X"). Never on similarity alone.

Only grammar here: value words are read by shape (capitalised or Latin words, numbers,
Chinese nouns by jieba tag), change cues are the ones facts.py uses.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from extract import rx
from extract.slots import cut_zh

_HAN = rx.compile(r"[\u4e00-\u9fff]")
_WORD_EN = rx.compile(r"[A-Za-z0-9][\w.+#@/-]*")
_DIGIT = rx.compile(r"\d")
_TRAIL_PUNCT = rx.compile(r"[.\-/]+$")
# subjects the wording writes, change cues, and sentence-initial words: never a value
_NOT_VALUE = {
    "the", "user", "user's", "users", "i", "i'm", "let's", "actually", "instead", "now",
    "make", "that", "and", "others", "new", "no", "not", "longer", "switched", "moved",
    "changed", "update", "correction", "a", "an", "my", "our", "we",
}  # fmt: skip
_NOT_VALUE_ZH = {"用户", "用户等人", "我", "我们", "现在", "以后", "今后", "一下"}
_UNTYPED = {"DATE", "TIME", "CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY", "PERSON"}
_VALUE_FLAGS_ZH = ("n", "eng", "m", "t", "j")
# explicit correction cues, in a Fact's own words (facts.py marks corrections with them)
CUE_EN = rx.compile(
    r"\b(?:actually|instead|(?:switched|moved|changed)\s+(?:to|from|over|it\s+to)|"
    r"make\s+that|no\s+longer|from\s+now\s+on)\b",
    rx.IGNORECASE,
)
CUE_ZH = rx.compile(r"换成|改成|改为|改到|换到|更正|不再|搬到|改在|挪到|改用|换用")


def has_cue(text: str) -> bool:
    """Whether ``text`` itself says that something changed."""
    return bool(CUE_ZH.search(text) or CUE_EN.search(text))


@dataclass(frozen=True)
class Known:
    """An older Fact as conflict detection sees it."""

    fact_id: str
    content: str
    kind: str
    polarity: str
    slot: str | None
    valid_from: datetime
    embedding: Sequence[float] | None
    sources: tuple[str, ...]
    entities: tuple[tuple[str, str], ...] = ()  # (name, type)


@dataclass(frozen=True)
class Claim:
    """A new Fact that may replace an older one (a correction, or a slot value)."""

    fact_id: str
    content: str
    kind: str
    polarity: str
    slot: str | None
    valid_from: datetime
    embedding: Sequence[float] | None
    sources: tuple[str, ...]
    correction: bool  # the Fact's own clause says something changed (FactDraft.cue)
    retracts: bool = False  # it names what stops being true: the retraction handles it
    entities: tuple[tuple[str, str], ...] = ()  # (name, type)


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


def values(content: str) -> dict[str, str]:
    """The value words of a Fact's content, each with its type ("num" or "name")."""
    out: dict[str, str] = {}
    if _HAN.search(content):
        for word, flag in cut_zh(content):
            w = word.strip()
            if not w or w in _NOT_VALUE_ZH or not flag.startswith(_VALUE_FLAGS_ZH):
                continue
            if _DIGIT.search(w) or flag[:1] in ("m", "t"):
                out[w] = "num"
            elif flag in ("eng", "j") or (flag[:1] == "n" and len(w) >= 2):
                out[w] = "name"
        return out
    for i, m in enumerate(_WORD_EN.finditer(content)):
        w = _TRAIL_PUNCT.sub("", m.group(0))
        low = w.lower()
        if not w or low in _NOT_VALUE:
            continue
        if _DIGIT.search(w):
            out[w] = "num"
        elif w[:1].isupper() and i > 0:
            out[w] = "name"
    return out


def _words(content: str) -> set[str]:
    if _HAN.search(content):
        return {
            w.strip().lower()
            for w, _f in cut_zh(content)
            if len(w.strip()) >= 2 and w.strip() not in _NOT_VALUE_ZH
        }
    words = {m.group(0).lower() for m in _WORD_EN.finditer(content) if len(m.group(0)) >= 3}
    return words - _NOT_VALUE


def _head(slot: str | None) -> str:
    return (slot or "").partition(":")[0]


def _head_shared(new: Claim, old: Known) -> bool:
    """The older Fact names the new value's attribute (one head with other qualifiers,
    "filter:seat" and "filter:time", are two attributes)."""
    head = _head(new.slot)
    if not head or (old.slot and _head(old.slot) == head):
        return False
    return head.replace("_", " ") in old.content.lower()


def _other_slots(new: Claim, old: Known) -> bool:
    """One head with other qualifiers ("filter:seat", "filter:time"): two attributes."""
    return bool(
        new.slot and old.slot and new.slot != old.slot and _head(new.slot) == _head(old.slot)
    )


def _typed(ents: tuple[tuple[str, str], ...], other: str) -> set[str]:
    """The entity types of the names in ``ents`` that ``other`` does not mention."""
    low = other.lower()
    return {t for n, t in ents if n.lower() not in low and t not in _UNTYPED}


def _differs(new: dict[str, str], old: dict[str, str]) -> bool:
    """Each side has a value the other lacks, and some of those are of one type."""
    low_new, low_old = [w.lower() for w in new], [w.lower() for w in old]
    fresh = {
        t for w, t in new.items() if not any(w.lower() in o or o in w.lower() for o in low_old)
    }
    gone = {t for w, t in old.items() if not any(w.lower() in n or n in w.lower() for n in low_new)}
    return bool(fresh & gone)


def _said_by_slot(new: Claim, vals: dict[str, str], claims: Sequence[Claim]) -> bool:
    """A cue-only claim whose new name a slot claim of its own message also states
    ("the team switched over to Y, the report goes to Y too"): one change, which the slot
    claim replaces precisely; the general claim replaces nothing else."""
    if new.slot:
        return False
    names = [w.lower() for w, t in vals.items() if t == "name"]
    return any(
        c.slot and c.fact_id != new.fact_id and set(c.sources) & set(new.sources)
        and any(w in c.content.lower() for w in names)
        for c in claims
    )  # fmt: skip


def conflicts(
    claims: Sequence[Claim],
    known: Sequence[Known],
    threshold: float,
    value_similarity: Callable[[str, list[str]], list[float]] | None = None,
) -> dict[str, str]:
    """new fact id → the older fact id it replaces (at most one each)."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for new in sorted(claims, key=lambda c: c.valid_from):
        if not (new.correction or new.slot) or new.embedding is None or new.retracts:
            continue
        if new.slot and any(k.slot == new.slot and k.fact_id != new.fact_id for k in known):
            continue  # an older value on the same slot: the write supersedes it already
        new_vals = values(new.content)
        if not new_vals or _said_by_slot(new, new_vals, claims):
            continue
        found: list[tuple[float, Known, dict[str, str]]] = []
        for old in known:
            if old.fact_id == new.fact_id or old.fact_id in taken or old.embedding is None:
                continue
            if old.valid_from > new.valid_from or set(old.sources) & set(new.sources):
                continue
            # an explicit cue names a change: the kind wording may differ, the polarity not;
            # a slot value without a cue only replaces a Fact that names its attribute
            if _other_slots(new, old):
                continue
            cued = new.correction and old.polarity == new.polarity
            if not (cued or _head_shared(new, old)):
                continue
            sim = cosine(new.embedding, old.embedding)
            old_vals = values(old.content)
            if sim < threshold or not _differs(new_vals, old_vals):
                continue
            shared = len(_words(new.content) & _words(old.content) - {w.lower() for w in new_vals})
            kin = _typed(new.entities, old.content) & _typed(old.entities, new.content)
            same_kind = 0.03 * (old.kind == new.kind)  # a correction restates one kind of Fact
            found.append(
                (sim + 0.02 * min(shared, 3) + 0.05 * bool(kin) + same_kind, old, old_vals)
            )
        if not found:
            continue
        if value_similarity is not None and len(found) > 1:
            names = [w for w, t in new_vals.items() if t == "name"] or list(new_vals)
            text = " ".join(names)
            sims = value_similarity(
                text,
                [
                    " ".join([w for w, t in v.items() if t == "name"] or list(v))
                    for _s, _o, v in found
                ],
            )
            found = [(s + v, o, ov) for (s, o, ov), v in zip(found, sims, strict=True)]
        best = max(found, key=lambda x: x[0])[1]
        out[new.fact_id] = best.fact_id
        taken.add(best.fact_id)
    return out


__all__ = ["CUE_EN", "CUE_ZH", "Claim", "Known", "conflicts", "cosine", "has_cue", "values"]
