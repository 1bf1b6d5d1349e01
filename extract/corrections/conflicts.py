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

Only grammar here: value words are read by shape (capitalised or Latin words, numbers,
Chinese nouns by jieba tag), change cues are the ones facts.py uses.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime

from extract.text import rx
from extract.text.zh_words import cut_zh

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
# an attribute named before a change verb ("修车的地方改为 Y", "把窗帘换成 Y")
_ATTR_ZH = rx.compile(
    r"^(?P<attr>.{1,24}?)(?:也|都|又|已经|就)?(?:换成|改成|改为|改到|换到|调成|调到|改在|挪到|变成)"
)
_ATTR_EN = rx.compile(
    r"\b(?:switch|chang|mov|swap|updat)\w*\s+(?:my\s+|our\s+|the\s+)?"
    r"(?P<attr>[A-Za-z][\w-]*(?:\s+[A-Za-z][\w-]*){0,2}?)\s+(?:to|for)\b",
    rx.IGNORECASE,
)
# an intention to change is no change yet ("想把 X 换成 Y", "thinking of switching to Y")
_WISH_ZH = rx.compile(
    r"(?:想|打算|准备|计划|考虑)要?(?:把[^，,。]{0,12}?)?(?:换成|改成|改为|换到|改到)"
)
_WISH_EN = rx.compile(
    r"\b(?:want(?:s|ed)?\s+to|plan(?:s|ning)?\s+to|thinking\s+(?:of|about)|considering|"
    r"might|may)\s+(?:switch|chang|mov|swap)\w*",
    rx.IGNORECASE,
)
_NOT_ATTR = {"it", "them", "that", "this", "over", "back", "things", "everything", "plans"}
_NOT_ATTR_ZH = {"用户", "用户等人", "我们", "现在", "以后", "今后", "那边", "这边", "地方"}
_ANCHOR_FLAGS_ZH = ("n", "v", "eng", "j", "l")
# English function words that share no attribute between two Facts
_FUNCTION_EN = {
    "about", "after", "again", "also", "been", "before", "being", "does", "done", "each",
    "every", "from", "have", "having", "here", "into", "just", "more", "most", "much", "only",
    "other", "over", "same", "some", "than", "that", "their", "them", "then", "there", "these",
    "they", "this", "those", "through", "very", "were", "what", "when", "where", "which",
    "while", "will", "with", "would", "your", "days", "nowadays", "currently", "moment",
}  # fmt: skip
_STEM = 5  # English words sharing their first letters share a stem (emptied/empties)


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
    previous: str | None = None  # the content of the Fact this one replaced, if any


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
        run: list[str] = []
        for word, flag in [*cut_zh(content), ("", "x")]:
            w = word.strip()
            modifier = flag[:1] in ("n", "g", "j", "l", "i") or flag == "eng"
            # a verb-tagged modifier counts too ("安心" + H)
            modifier = modifier or (flag[:1] in ("v", "a") and len(w) >= 2)
            if w and w not in _NOT_VALUE_ZH and modifier:
                run.append(w)
                if len(run) > 1 and len(w) >= 2 and flag[:1] == "n":
                    # 康+宁+H: jieba cuts a name it does not know into characters
                    out["".join(run)] = "name"
            elif w or not word:
                run = []
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


def is_weak(text: str) -> bool:
    """Only an adverb of the present marks ``text`` as a change ("现在去 Y", "these days Y")."""
    return bool(NOW_ZH.search(text) or NOW_EN.search(text))


def attribute(content: str) -> list[str]:
    """The words of the attribute a change verb names in ``content`` ("修车的地方改为 Y" ->
    修车; "把窗帘换成 Y" -> 窗帘; "switched the weekly sync to Y" -> weekly, sync); [] when none."""
    if _HAN.search(content):
        m = _ATTR_ZH.search(content)
        if not m:
            return []
        return [
            w
            for w, f in cut_zh(m.group("attr"))
            if len(w.strip()) >= 2 and w not in _NOT_ATTR_ZH and f.startswith(("n", "v", "eng"))
        ]
    m = _ATTR_EN.search(content)
    if not m:
        return []
    words = m.group("attr").lower().split()
    if words[0] in _NOT_ATTR or words[0] in ("to", "from", "up", "out"):
        return []  # "switched to Y", "changed it to Y": no attribute named
    return [w for w in words if w not in _NOT_ATTR and len(w) >= 3]


def _anchored(new: str, old: str) -> bool:
    """The two Facts share a content word: a head
    noun ("乙H" / "甲H": H), or in English a stem (emptied / empties)."""
    if _HAN.search(new):
        for w, f in cut_zh(new):
            w = w.strip()
            if len(w) < 2 or w in _NOT_VALUE_ZH or _DIGIT.search(w):
                continue
            if f.startswith(_ANCHOR_FLAGS_ZH) and w in old:
                return True
        return False
    olds = {
        m.group(0).lower()[:_STEM]
        for m in _WORD_EN.finditer(old)
        if len(m.group(0)) >= 4 and m.group(0).lower() not in _FUNCTION_EN
    }
    for m in _WORD_EN.finditer(new):
        w = m.group(0).lower()
        if len(w) < 4 or w in _NOT_VALUE or w in _FUNCTION_EN or _DIGIT.search(w):
            continue
        if w[:_STEM] in olds:
            return True
    return False


_PREP_EN = {"on", "in", "at", "with", "from", "to", "for", "via", "by"}
_DET_EN = {"the", "a", "an", "their", "its", "my", "our", "his", "her"}


def _roles(content: str, vals: set[str]) -> set[str]:
    """The prepositions that govern the values ``vals`` in English ``content`` ("on Bitbucket")."""
    words = [_TRAIL_PUNCT.sub("", m.group(0)) for m in _WORD_EN.finditer(content)]
    out: set[str] = set()
    for i, w in enumerate(words):
        if w not in vals:
            continue
        j = i - 1
        while j >= 0 and words[j].lower() in _DET_EN:
            j -= 1
        if j >= 0 and words[j].lower() in _PREP_EN:
            out.add(words[j].lower())
    return out


def _same_role(new: str, old: str, new_vals: dict[str, str], old_vals: dict[str, str]) -> bool:
    """A value the new Fact has and the older lacks, and one the older has and the new
    lacks, stand after the same preposition: "hosted on Bitbucket" / "sits on Y"."""
    if _HAN.search(new) or _HAN.search(old):
        return False
    low_new, low_old = new.lower(), old.lower()
    fresh = {w for w in new_vals if w.lower() not in low_old}
    gone = {w for w in old_vals if w.lower() not in low_new}
    return bool(_roles(new, fresh) & _roles(old, gone))


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
        if not new_vals or _said_by_slot(new, new_vals, claims) or _said_by_retraction(new, claims):
            continue
        found: list[tuple[float, Known, dict[str, str], bool]] = []
        for old in known:
            if old.fact_id == new.fact_id or old.fact_id in taken or old.embedding is None:
                continue
            if old.valid_from > new.valid_from or set(old.sources) & set(new.sources):
                continue
            # an explicit cue names a change: the kind wording may differ, the polarity not;
            # a slot value without a cue only replaces a Fact that names its attribute
            if _other_slots(new, old):
                continue
            cued = (new.correction or weak) and old.polarity == new.polarity
            if not (cued or _head_shared(new, old)):
                continue
            sim = cosine(new.embedding, old.embedding)
            old_vals = values(old.content)
            if sim < threshold or not _differs(new_vals, old_vals, weak):
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
    return out


def returns(text: str) -> bool:
    """Whether ``text`` goes back to an earlier value ("back to Y", "还是改回 Y")."""
    return bool(RETURN_ZH.search(text) or RETURN_EN.search(text))


def restorations(
    claims: Sequence[Claim], known: Sequence[Known], replaces: dict[str, str]
) -> dict[str, str]:
    """new fact id → the content it restores: a claim that goes back to an earlier value
    (A, then B replacing A, then "back to A") is worded as A was, when the Fact it replaces
    (B: the one ``replaces`` names, else the latest on its slot) replaced A and every new
    value the claim names is A's. The claim stays a new Fact citing its own Message."""
    by_id = {k.fact_id: k for k in known}
    out: dict[str, str] = {}
    for c in claims:
        if not returns(c.content):
            continue
        old = by_id.get(replaces.get(c.fact_id, "")) or _latest_on_slot(c, known)
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
    "CUE_EN",
    "CUE_ZH",
    "NOW_EN",
    "NOW_ZH",
    "Claim",
    "Known",
    "attribute",
    "candidate",
    "changed_facts",
    "conflicts",
    "cosine",
    "has_cue",
    "is_weak",
    "restorations",
    "returns",
    "values",
]
