"""Implicit conflicts: which older Fact a correction or a new slot value replaces.

Supersede by attribute: a new statement that gives another value to the attribute an
older Fact states replaces that Fact, and only it. The attribute is read by structure:
the phrase a change verb names ("X 改为 Y", "把 X 换成 Y", "switched X to Y"), else the
words both Facts share besides their values (a head noun: "甲H" / "乙H"
share "H"; "emptied" / "empties" share a stem), else the type of the named values
that differ (an ORG for an ORG). A statement marked only by an adverb of the present
("现在 …", "these days …", "nowadays …") is a *weak* change: it replaces an older Fact
only when one of those attribute signs ties them, never on similarity alone.

A Fact that carries a correction cue or sets a slot may replace an older active Fact of
the same user that has no slot in common ("planning a cruise to X" … "let's do Y
instead"). The older Fact is a candidate when it is embedding-near (cosine at least
``threshold``), of the same kind and polarity or sharing the attribute head, earlier, from
other Messages, and when the two state *different values of one type*: each has a value
(a name or a number) the other lacks, and some value on each side is of the same type. Of
the candidates the best one is taken, ranked by the fact cosine plus the cosine of the
values themselves ("Y" against "X"). Never on similarity alone.

Only grammar here: value words are read by shape (values.py: capitalised or Latin words,
numbers, Chinese nouns by jieba tag), change cues are the ones chat extraction marks
corrections with (cues.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from corrections.cues import has_cue, is_weak, returns
from corrections.values import _HAN, _anchored, _same_role, _words, attribute, values
from text import rx

_UNTYPED = {"DATE", "TIME", "CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY", "PERSON"}
# an intention to change is no change yet ("想把 X 换成 Y", "thinking of switching to Y")
_WISH_ZH = rx.compile(
    r"(?:想|打算|准备|计划|考虑)要?(?:把[^，,。]{0,12}?)?(?:换成|改成|改为|换到|改到)"
)
_WISH_EN = rx.compile(
    r"\b(?:want(?:s|ed)?\s+to|plan(?:s|ning)?\s+to|thinking\s+(?:of|about)|considering|"
    r"might|may)\s+(?:switch|chang|mov|swap)\w*",
    rx.IGNORECASE,
)


@dataclass(frozen=True, kw_only=True)
class _Seen:
    """A Fact as conflict detection sees it, old or new."""

    fact_id: str
    content: str
    kind: str
    polarity: str
    slot: str | None
    valid_from: datetime
    embedding: Sequence[float] | None
    sources: tuple[str, ...]
    entities: tuple[tuple[str, str], ...] = ()  # (name, type)


@dataclass(frozen=True, kw_only=True)
class Known(_Seen):
    """An older Fact as conflict detection sees it."""

    previous: str | None = None  # the content of the Fact this one replaced, if any


@dataclass(frozen=True, kw_only=True)
class Claim(_Seen):
    """A new Fact that may replace an older one (a correction, or a slot value)."""

    correction: bool  # the Fact's own clause says something changed (FactDraft.cue)
    retracts: bool = False  # it names what stops being true: the retraction handles it

    def known(self) -> Known:
        """The new Fact as a later claim of the same batch sees it."""
        return Known(
            fact_id=self.fact_id, content=self.content, kind=self.kind, polarity=self.polarity,
            slot=self.slot, valid_from=self.valid_from, embedding=self.embedding,
            sources=self.sources, entities=self.entities,
        )  # fmt: skip


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=False))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


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


def _same_value(w: str, others: list[str]) -> bool:
    """``w`` is one of ``others``, or contains or is contained in one; a Chinese head noun
    that ends a longer name is no such value (甲H / 乙H: H)."""
    for o in others:
        for short, long in ((w, o), (o, w)):
            if short in long and not (
                _HAN.search(short) and short != long and long.endswith(short)
            ):
                return True
    return False


def _differs(new: dict[str, str], old: dict[str, str], named: bool = False) -> bool:
    """Each side has a value the other lacks, and some of those are of one type (with
    ``named``: both names, as a weak change needs: "乙H" for "甲H", not
    "10 天" for "两盆")."""
    low_new, low_old = [w.lower() for w in new], [w.lower() for w in old]
    fresh = {t for w, t in new.items() if not _same_value(w.lower(), low_old)}
    gone = {t for w, t in old.items() if not _same_value(w.lower(), low_new)}
    if named:
        return "name" in fresh & gone
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


def _said_by_retraction(new: Claim, claims: Sequence[Claim]) -> bool:
    """A claim without a change word of its own whose message says what stopped being true
    ("不是 X 了，现在是 Y"): the retraction replaces the Fact naming X; this claim replaces
    nothing else."""
    return (
        not new.slot
        and not has_cue(new.content)
        and any(
            c.retracts and c.fact_id != new.fact_id and set(c.sources) & set(new.sources)
            for c in claims
        )
    )


def _back_to(new: Claim, old: Known, new_vals: dict[str, str]) -> bool:
    """``new`` goes back to the value ``old`` replaced (A, then B for A, then A again, with
    no cue word: "算了，<X>还是<A>"): every name it states that ``old`` lacks is one the Fact
    before ``old`` stated, and it names two of them or shares a word besides its values
    with that Fact (the attribute). Not on similarity: the earlier value ties them."""
    if not old.previous or {old.polarity, new.polarity} == {"likes", "avoids"}:
        return False  # a like for an avoidance is no return to a value
    low_old, low_prev = old.content.lower(), old.previous.lower()
    fresh = [w.lower() for w, t in new_vals.items() if t == "name" and w.lower() not in low_old]
    if not fresh or not all(w in low_prev for w in fresh):
        return False
    kept = _words(new.content) & _words(old.previous) - {w.lower() for w in new_vals}
    return len(fresh) >= 2 or bool(kept)


def candidate(claim: Claim) -> bool:
    """Whether ``claim`` may replace an older Fact: a change cue, a slot value, or a
    statement of how things are now."""
    return bool(claim.correction or claim.slot or is_weak(claim.content))


def conflicts(
    claims: Sequence[Claim],
    known: Sequence[Known],
    threshold: float,
    value_similarity: Callable[[str, list[str]], list[float]] | None = None,
) -> dict[str, str]:
    """new fact id → the older fact id it replaces (at most one each)."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    replaced: dict[str, str] = {}  # a claim of this batch → the content it replaced
    for new in sorted(claims, key=lambda c: c.valid_from):
        if not candidate(new) or new.embedding is None or new.retracts:
            continue
        weak = not (new.correction or new.slot)  # only an adverb of the present
        if _WISH_ZH.search(new.content) or _WISH_EN.search(new.content):
            continue  # "想把窗帘换成 Y": a change the user intends, nothing changed yet
        attr = attribute(new.content) if new.correction else []
        if new.slot and any(k.slot == new.slot and k.fact_id != new.fact_id for k in known):
            continue  # an older value on the same slot: the write supersedes it already
        new_vals = values(new.content)
        # "go back to the original one": a return that names no value of its own
        unnamed_return = not new_vals and new.correction and returns(new.content)
        if not new_vals and not unnamed_return:
            continue
        if _said_by_slot(new, new_vals, claims) or _said_by_retraction(new, claims):
            continue
        found: list[tuple[float, Known, dict[str, str], bool]] = []
        for old in known:
            if old.fact_id == new.fact_id or old.fact_id in taken:
                continue
            if old.valid_from > new.valid_from or set(old.sources) & set(new.sources):
                continue
            if old.previous is None and old.fact_id in replaced:
                old = replace(old, previous=replaced[old.fact_id])
            back = _back_to(new, old, new_vals)
            if old.embedding is None and not back:
                continue  # too far to be replaced, unless it replaced the value new restores
            # an explicit cue names a change: the kind wording may differ, the polarity not;
            # a slot value without a cue only replaces a Fact that names its attribute
            if _other_slots(new, old):
                continue
            cued = (new.correction or weak) and old.polarity == new.polarity
            if not (cued or back or _head_shared(new, old)):
                continue
            sim = cosine(new.embedding, old.embedding) if old.embedding is not None else 0.0
            old_vals = values(old.content)
            if unnamed_return:  # the latest change on the attribute both name
                if not old.previous or not _anchored(new.content, old.content):
                    continue
            elif (sim < threshold and not back) or not _differs(new_vals, old_vals, weak):
                continue
            shared = len(_words(new.content) & _words(old.content) - {w.lower() for w in new_vals})
            kin = _typed(new.entities, old.content) & _typed(old.entities, new.content)
            if weak and not (
                kin
                or _anchored(new.content, old.content)
                or _same_role(new.content, old.content, new_vals, old_vals)
            ):
                continue  # "now Y" ties to an older Fact only through its attribute
            same_kind = 0.03 * (old.kind == new.kind)  # a correction restates one kind of Fact
            named = bool(attr) and any(w.lower() in old.content.lower() for w in attr)
            found.append(
                (sim + 0.02 * min(shared, 3) + 0.05 * bool(kin) + same_kind, old, old_vals, named)
            )
        if any(f[3] for f in found):
            # the change names its attribute ("修车的地方改为 Y"): only Facts about it
            found = [f for f in found if f[3]]
        if not found:
            continue
        if value_similarity is not None and len(found) > 1:
            names = [w for w, t in new_vals.items() if t == "name"] or list(new_vals)
            text = " ".join(names)
            sims = value_similarity(
                text,
                [
                    " ".join([w for w, t in v.items() if t == "name"] or list(v))
                    for _s, _o, v, _n in found
                ],
            )
            found = [(s + v, o, ov, n) for (s, o, ov, n), v in zip(found, sims, strict=True)]
        best = max(found, key=lambda x: x[0])[1]
        out[new.fact_id] = best.fact_id
        taken.add(best.fact_id)
        replaced[new.fact_id] = best.content
    return out


def restorations(
    claims: Sequence[Claim], known: Sequence[Known], replaces: dict[str, str]
) -> dict[str, str]:
    """new fact id → the content it restores: a claim that goes back to an earlier value
    (A, then B replacing A, then "back to A") is worded as A was, when the Fact it replaces
    (B: the one ``replaces`` names, else the latest on its slot) replaced A and every new
    value the claim names is A's. The claim stays a new Fact citing its own Message."""
    by_id = {k.fact_id: k for k in known}
    for new_id, old_id in replaces.items():  # what a claim of this batch replaced
        if new_id in by_id and by_id[new_id].previous is None and old_id in by_id:
            by_id[new_id] = replace(by_id[new_id], previous=by_id[old_id].content)
    out: dict[str, str] = {}
    for c in claims:
        replaced = by_id.get(replaces.get(c.fact_id, ""))
        if replaced is not None and _back_to(c, replaced, values(c.content)):
            out[c.fact_id] = replaced.previous or c.content  # "算了，<X>还是<A>": A as it was
            continue
        if not returns(c.content):
            continue
        old = replaced or _latest_on_slot(c, known)
        if old is None or not old.previous:
            continue
        fresh = [w.lower() for w in values(c.content) if w.lower() not in old.content.lower()]
        if all(w in old.previous.lower() for w in fresh):
            out[c.fact_id] = old.previous
    return out


def changed_facts(
    claims: Sequence[Claim], known: Sequence[Known], replaces: dict[str, str]
) -> dict[str, str]:
    """new fact id → the older Fact it changes: the one ``replaces`` names, else the latest
    older Fact on its slot (the write supersedes that one): what a partial change carries
    the rest of."""
    out = dict(replaces)
    for c in claims:
        if c.fact_id not in out and (old := _latest_on_slot(c, known)) is not None:
            out[c.fact_id] = old.fact_id
    return out


def _latest_on_slot(claim: Claim, known: Sequence[Known]) -> Known | None:
    same = [
        k
        for k in known
        if claim.slot and k.slot == claim.slot and k.fact_id != claim.fact_id
        and k.valid_from <= claim.valid_from and not set(k.sources) & set(claim.sources)
    ]  # fmt: skip
    return max(same, key=lambda k: k.valid_from, default=None)


__all__ = [
    "Claim",
    "Known",
    "candidate",
    "changed_facts",
    "conflicts",
    "cosine",
    "restorations",
]
