"""Slots found by structure: the attribute a clause sets, and what it retracts.

A slot is the attribute a later message can give a new value: its key is the normalised
head noun of the attribute with its qualifier (``size:ring``, ``sync``, ``时薪``), so any
noun attribute in any domain can be a slot. English reads spaCy's dependency parse
("my X is Y", "X is now Y", "I live/work/moved in/to X", "I prefer X", "I need X",
"I'm allergic to X", "make that Y on X"); Chinese reads jieba's segmentation around a few
grammar anchors (我的X是Y, X改成/换成Y, 把X换成Y, 我住在/搬到X). A retraction ("no longer
X", "not X anymore", "instead of X", 不再X) names the content words of what stops being
true, so an older Fact that carries them is superseded even without a slot.

Only grammar words live here (copulas, prepositions, change verbs, adverbs of change);
no domain word.
"""

from __future__ import annotations

from dataclasses import dataclass

from spacy.tokens import Token

from text import rx
from text.zh_words import cut_zh


@dataclass(frozen=True)
class Slot:
    key: str
    value: str


# --- English ------------------------------------------------------------------------------

_FIRST_POSS = {"my", "our"}
_COPULA = {"be"}
_HOME_VERBS = {"live", "reside", "move", "relocate", "base", "settle", "stay"}
_HOME_PREPS = {"in", "to", "at"}
_WORK_PREPS = {"in", "from", "out"}
_PREFER_VERBS = {"prefer", "need", "want", "require"}
_CHANGE_ADV = {"now", "currently", "actually", "still", "also", "just", "anymore", "instead"}
_VALUE_DEPS = {"attr", "acomp", "oprd", "prep", "npadvmod", "dobj", "advmod", "ccomp", "xcomp"}
_CUT_DEPS = {"advcl", "mark", "punct", "cc", "conj", "relcl", "parataxis"}
_NOUNS = {"NOUN", "PROPN"}
_KEY_CHARS = rx.compile(r"[^\w]+")
_ALLERGIC = {"allergic", "intolerant", "sensitive"}


def _norm(words: list[str]) -> str:
    return "_".join(w for w in (_KEY_CHARS.sub("", x.lower()) for x in words) if w)


def _lemma(t: Token) -> str:
    return (t.lemma_ if t.pos_ == "NOUN" else t.text).lower()


def _en_key(head: Token) -> str | None:
    """``head`` as a slot key: its lemma, qualified by compounds and non-user owners."""
    if head.pos_ not in _NOUNS and head.pos_ != "NUM":
        return None
    base = _norm([_lemma(head)])
    quals = [c for c in head.children if c.dep_ == "compound" and c.i < head.i]
    owner = [
        c
        for c in head.children
        if c.dep_ == "poss" and c.lower_ not in _FIRST_POSS and c.pos_ in _NOUNS
    ]
    qual = _norm([c.text for c in owner] + [_lemma(c) for c in quals])
    if not base:
        return None
    return f"{base}:{qual}" if qual else base


def _span_text(toks: list[Token]) -> str:
    if not toks:
        return ""
    doc = toks[0].doc
    text = doc[toks[0].i : toks[-1].i + 1].text.lstrip(" ,.;:!?").rstrip(" ,.;:!?-—–")
    return text + ")" if text.count("(") > text.count(")") else text


def _subtree(tok: Token, inside: set[int], skip: frozenset[int] = frozenset()) -> list[Token]:
    out: list[Token] = []
    stack = [tok]
    while stack:
        t = stack.pop()
        if t.i not in inside or t.i in skip:
            continue
        out.append(t)
        stack.extend(c for c in t.children if c.dep_ not in _CUT_DEPS)
    return sorted(out, key=lambda t: t.i)


def _value_after(verb: Token, inside: set[int], skip: set[int]) -> str:
    """The complement of ``verb`` to its right: its value, without change adverbs."""
    toks: list[Token] = []
    for c in verb.children:
        if c.i <= verb.i or c.dep_ not in _VALUE_DEPS or c.i in skip:
            continue
        if c.lower_ in _CHANGE_ADV or (c.dep_ == "advmod" and c.pos_ == "ADV"):
            continue
        toks += [
            t
            for t in _subtree(c, inside, frozenset(skip))
            if not (t.dep_ == "det" and t.head.i == c.i)
        ]
    toks = sorted({t.i: t for t in toks}.values(), key=lambda t: t.i)
    while toks and (toks[0].pos_ == "ADP" or toks[0].lower_ in _CHANGE_ADV):
        toks = toks[1:]
    return _span_text([t for t in toks if t.lower_ not in ("now", "anymore")])


def _first_person(t: Token) -> bool:
    return t.lower_ in ("i", "we") and t.pos_ == "PRON"


def _modifiers(noun: Token) -> str:
    mods = [
        c
        for c in noun.children
        if c.i < noun.i and c.dep_ in ("amod", "nummod", "nmod", "quantmod")
    ]
    return " ".join(c.text for c in mods)


def slot_en(toks: list[Token]) -> Slot | None:
    """The slot a clause sets, read from the dependency parse; None when it sets none."""
    inside = {t.i for t in toks}
    for verb in toks:
        if verb.pos_ not in ("AUX", "VERB"):
            continue
        subj = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        lemma = verb.lemma_.lower()
        # "my X is Y", "X is now Y", "our weekly sync is now on Thursdays"
        if lemma in _COPULA and subj is not None and subj.pos_ in _NOUNS and subj.lower_ != "one":
            owned = any(c.lower_ in _FIRST_POSS for c in subj.children if c.dep_ == "poss")
            changed = any(
                c.lower_ in ("now", "currently") for c in verb.children if c.dep_ == "advmod"
            ) or any(c.lower_ in ("new", "current") for c in subj.children if c.dep_ == "amod")
            key = _en_key(subj)
            value = _value_after(verb, inside, set())
            if key and value and (owned or changed) and len(value.split()) <= 8:
                return Slot(key, value)
        if subj is None or not _first_person(subj):
            continue
        # "I'm allergic to X" (one slot per allergen: a later "no longer" changes it)
        if lemma in _COPULA:
            comp = next((c for c in verb.children if c.dep_ == "acomp"), None)
            if comp is not None and comp.lower_ in _ALLERGIC:
                obj = next((g for p in comp.children if p.dep_ == "prep" for g in p.children), None)
                if obj is not None:
                    neg = any(c.dep_ == "neg" for c in verb.children)
                    return Slot(f"allergy:{_norm([_lemma(obj)])}", "no" if neg else "yes")
        # "I live in X", "I moved to X", "I work from X"
        for prep in (c for c in verb.children if c.dep_ == "prep"):
            obj = next((g for g in prep.children if g.dep_ == "pobj"), None)
            if obj is None or obj.i not in inside:
                continue
            value = _span_text(_subtree(obj, inside))
            if lemma in _HOME_VERBS and prep.lower_ in _HOME_PREPS:
                return Slot("home_city", value)
            if lemma == "work" and prep.lower_ in _WORK_PREPS and obj.pos_ == "PROPN":
                return Slot("work_city", value)
        # "I prefer aisle seats", "I need a German keyboard layout"
        if lemma in _PREFER_VERBS:
            obj = next((c for c in verb.children if c.dep_ == "dobj"), None)
            if obj is not None and obj.pos_ == "NOUN":
                mods = _modifiers(obj)
                comps = [c.text for c in obj.children if c.dep_ == "compound" and c.i < obj.i]
                key = _en_key(obj) if mods else _norm([_lemma(obj)])
                value = mods or " ".join(comps)
                if value and key:
                    return Slot(key, value)
    return None


def make_that_en(toks: list[Token]) -> Slot | None:
    """ "Make that 14 on payment terms" / "change it to X": a value for a named attribute."""
    if not toks or toks[0].lemma_.lower() not in ("make", "change", "switch", "set"):
        return None
    verb = toks[0]
    inside = {t.i for t in toks}
    attr, skip = None, set()
    obj = [c for c in verb.children if c.dep_ == "dobj"]
    for prep in (
        c
        for h in (verb, *obj)
        for c in h.children
        if c.dep_ == "prep" and c.lower_ in ("on", "for", "from")
    ):
        skip.add(prep.i)
        found = next((g for g in prep.children if g.dep_ == "pobj" and g.pos_ == "NOUN"), None)
        attr = attr or found
    if attr is None:
        return None
    key = _en_key(attr)
    value = _value_after(verb, inside, skip)
    return Slot(key, value) if key and value else None


_RETRACT_EN = rx.compile(
    r"\b(?:no longer|not\s+\w+\s+anymore|not anymore|instead of|rather than|switched from|"
    r"moved from|stopped|quit|cancell?ed|dropped|gave up)\b",
    rx.IGNORECASE,
)


def retracts_en(toks: list[Token]) -> tuple[str, ...]:
    """Content words of what a clause says is no longer true ("no longer on the night shift")."""
    if not toks:
        return ()
    text = toks[0].doc[toks[0].i : toks[-1].i + 1].text
    m = _RETRACT_EN.search(text)
    if not m:
        return ()
    start = toks[0].idx + m.end()
    words: list[str] = []
    for t in toks:
        if t.idx < start:
            continue
        if t.is_punct or t.dep_ in ("cc", "mark") or t.lower_ in ("instead", "but"):
            if words:
                break
            continue
        if t.pos_ in _NOUNS:
            words.append(t.text)
        elif words and t.pos_ not in ("ADJ", "NUM", "DET", "ADP"):
            break
    if not words:  # "no longer vegetarian"
        words = [t.text for t in toks if t.idx >= start and t.pos_ == "ADJ"][:1]
    return tuple(dict.fromkeys(words))[:3]


# --- Chinese ------------------------------------------------------------------------------

_ANCHOR_ZH = rx.compile(
    r"(?P<a>改成了?|换成了?|改为|改到|换到|变成了?|调成|调到|调整为|定在|改在|挪到|是)"
)
_HOME_ZH = rx.compile(r"(?:住在|搬到了?|搬去了?|搬进了?|定居在)")
_VALUE_END = rx.compile(r"[，,。；;！!？?]")
_VALUE_TAIL = rx.compile(r"(?:了|吧|啊|呀|哦|啦|的)+$")
_OWNER_ZH = {"我", "我们", "咱们", "的", "把"}
_RETRACT_ZH = rx.compile(r"不再|不用了?|不要了?|不考虑|取消了?|退掉了?|停掉了?")
# "不是 X 了" / "已经不是 X 了": X stopped being the case
_NOT_ANY_MORE_ZH = rx.compile(
    r"(?:^|[^还])不(?:是|在)\s*(?P<v>[^，,。；;！!？?\s了][^，,。；;！!？?了]{0,15}?)\s*了"
)


_cut = cut_zh


def _head_flag(flag: str) -> bool:
    """A jieba tag that can be (part of) an attribute noun: nouns, verbal nouns, Latin words."""
    return flag == "eng" or flag[:1] in ("n", "j", "l", "i") or flag in ("v", "vn")


def _filler_flag(word: str, flag: str) -> bool:
    """Adverbs, time and frequency words, modifiers: what may precede an attribute."""
    return flag[:1] in ("d", "f", "t", "b", "a", "m", "q") or word.startswith("每")


def _attribute_zh(left: str) -> str | None:
    """The noun phrase that ends ``left`` when the clause opens with it, or it follows
    我的 / 我把 (the user's own attribute); None otherwise."""
    toks = _cut(left.rstrip())
    i = len(toks) - 1
    while i >= 0 and (toks[i][1][:1] in ("d", "f", "t") or not toks[i][0].strip()):
        i -= 1  # adverbs and time words after the attribute: 也, 都, 已经, 以后, 现在
    head: list[str] = []
    while i >= 0 and len(head) < 4:
        word, flag = toks[i]
        if not word.strip() and head and i > 0 and toks[i - 1][1] == "eng":
            head.insert(0, " ")  # "standup notes"
        elif not word.strip() or not _head_flag(flag):
            break
        else:
            head.insert(0, word)
        i -= 1
    attr = "".join(head).strip()
    if not attr or len(attr) > 16:
        return None
    rest = [(w, f) for w, f in toks[: i + 1] if w.strip()]
    if all(w in _OWNER_ZH or _filler_flag(w, f) for w, f in rest):
        return attr  # opens the clause, or follows 我的 / 我把 / adverbs
    return None


def slot_zh(text: str) -> Slot | None:
    """The slot a Chinese clause sets: 我的X是Y, X改成Y, 把X换成Y, 我住在/搬到X."""
    m = _HOME_ZH.search(text)
    if m and _user_only(text[: m.start()]):
        value = _value_zh(text[m.end() :])
        if value:
            return Slot("home_city", value)
    for m in _ANCHOR_ZH.finditer(text):
        attr = _attribute_zh(text[: m.start()])
        value = _value_zh(text[m.end() :]) if attr else ""
        if attr and value and len(value) <= 24:
            return Slot(_norm([attr.replace(" ", "_")]) or attr, value)
    return None


def _user_only(left: str) -> bool:
    """Nothing but the user (我 / 我们) and adverbs before the verb: "我们组搬到…" is the
    group's move, not the user's home."""
    toks = [(w, f) for w, f in _cut(left) if w.strip()]
    return all(w in _OWNER_ZH or w == "我家" or _filler_flag(w, f) for w, f in toks) and (
        not toks or any(w in ("我", "我们", "咱们", "我家") for w, _f in toks)
    )


def _value_zh(rest: str) -> str:
    """The value after an anchor: up to the first adverb, conjunction or punctuation."""
    out: list[str] = []
    for word, flag in _cut(rest.strip()):
        if _VALUE_END.search(word) or (out and flag[:1] in ("d", "c")):
            break
        out.append(word)
    return _VALUE_TAIL.sub("", "".join(out).strip()).strip()


def retracts_zh(text: str) -> tuple[str, ...]:
    """What a 不再 / 取消 / 不是…了 clause says is no longer true: its object, without the verb."""
    gone = _NOT_ANY_MORE_ZH.search(text)
    if gone:
        obj = _value_zh(gone.group("v"))
        return (obj,) if 2 <= len(obj) <= 12 else ()
    m = _RETRACT_ZH.search(text)
    if not m:
        return ()
    after = [(w, f) for w, f in _cut(text[m.end() :]) if w.strip()]
    while after and after[0][1][:1] in ("d", "p"):
        after = after[1:]  # 只, 在
    if after and after[0][1][:1] == "v" and after[0][1] != "vn":
        after = after[1:]  # the verb: 喝, 看
    obj = _value_zh("".join(w for w, _f in after))
    if len(obj) < 2:  # "X不要了": the object comes first
        left = [w for w, f in _cut(text[: m.start()]) if _head_flag(f) and len(w) >= 2]
        obj = left[-1] if left else ""
    return (obj,) if 2 <= len(obj) <= 12 else ()


def resolve_slot(slot: str, known: list[str]) -> str:
    """A bare attribute ("prescription") names the one known qualified slot with that
    head ("prescription:glass"), so "new prescription is X" replaces it; else unchanged."""
    if ":" in slot:
        return slot
    same = [k for k in dict.fromkeys(known) if k.partition(":")[0] == slot]
    return same[0] if len(same) == 1 else slot


__all__ = [
    "Slot",
    "make_that_en",
    "resolve_slot",
    "retracts_en",
    "retracts_zh",
    "slot_en",
    "slot_zh",
]
