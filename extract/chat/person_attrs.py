"""What a clause says a person *is* or *has*: an attribute with a value, read from the
predicate's structure, not from a list of attributes.

After the person's mention (<P> for a relation noun or a name): an attribute name, then a
copula or a number ("<P>身高160厘米", "<P><attribute>是7月30号"); a copula and what the person is
("<P>是做…的", "<P>是个…"); a naming verb ("<P>叫…"); a place and one verb ending the
clause ("<P>在<place>工作"); in English "<P> is called …", "<P> is a …", "<P> works as a
…", "<P> lives in …". An aspect marker, a preposition inside the predicate or a time before
a number reports an event, and an adjective or a taste verb is no attribute: those give
None, so the storage policy decides as before. The attribute names for identity, name,
home and workplace are pack wording, so a pack in another language names them.
"""

from __future__ import annotations

import jieba.posseg as pseg

from packs import current as current_pack
from text import rx

_COPULA_ZH = ("是", "为")
_HAVE_ZH = "有"
_NAMING_ZH = ("叫", "姓")  # and words of them ("…叫", "叫…")
_MEASURE_ZH = ("个", "一个", "一名", "名", "位", "一位")
# aspect markers: a clause with one reports an event, not an attribute
_EVENT_WORDS_ZH = ("了", "过", "着")
# flags no attribute name holds: pronoun, adverb, preposition, conjunction, particle, number
_NOT_ATTR_FLAGS = ("r", "d", "p", "c", "y", "m", "q", "x")
_ATTR_MAX = 6  # characters: "身高", "工作地", "邮箱地址"; a longer run is a clause
_TRAIL_ZH = rx.compile(r"[\s，,。.！!；;呢啊呀哦吧的]+$")
_ANAPHOR_ZH = rx.compile(r"^(?:其|他的|她的|它的|他|她|它)")
_LOCATIVE_ZH = "在"


def _words(text: str) -> list[tuple[str, str]]:
    return [(w.word, w.flag) for w in pseg.cut(text) if w.word.strip()]


def _value(words: list[tuple[str, str]]) -> str | None:
    value = _TRAIL_ZH.sub("", "".join(w for w, _f in words))
    if value.startswith(_LOCATIVE_ZH) and len(value) > 1:
        value = value[1:]  # "工作地是在广东深圳": the place
    return value or None


def _eventive(words: list[tuple[str, str]]) -> bool:
    """An aspect marker, or a preposition after the first word ("是通过…找的"): an event or
    its circumstances, not an attribute."""
    return any(w in _EVENT_WORDS_ZH for w, _f in words) or any(f[:1] == "p" for _w, f in words[1:])


def after_subject_zh(text: str, names: tuple[str, ...]) -> str:
    """The clause after its subject's mention ("<P>A是…" -> "A是…"), or after a
    leading anaphor when the clause carries the subject ("其…" -> "…")."""
    found = [(text.find(n), -len(n), n) for n in names if n and n in text]
    if found:
        at, _n, name = min(found)  # the first mention: "<P>叫<name>" -> "叫<name>"
        return text[at + len(name) :]
    return _ANAPHOR_ZH.sub("", text.strip(), count=1)


def attribute_zh(rest: str) -> tuple[str, str] | None:
    """(attribute, value) of a person's clause after its subject, or None."""
    words = _words(rest)
    if not words or _eventive(words):
        return None
    pack = current_pack()
    head = words[0][0]
    if any(head.startswith(n) or head.endswith(n) for n in _NAMING_ZH) and len(words) > 1:
        value, name = _value(words[1:]), pack.words("name", "zh")
        return (name, value) if value and name else None
    if head in _COPULA_ZH:
        return _identity_zh(words[1:])
    if head == _LOCATIVE_ZH:
        return _habitual_place_zh(words[1:])
    # an attribute name, then a copula, "有" or a number: "<A>160厘米", "<A>是…"
    at = next(
        (i for i, (w, f) in enumerate(words) if w in _COPULA_ZH or w == _HAVE_ZH or f[:1] == "m"),
        None,
    )
    if not at or at > 3:
        return None
    attr = "".join(w for w, _f in words[:at])
    if len(attr) > _ATTR_MAX or any(f[:1] in _NOT_ATTR_FLAGS for _w, f in words[:at]):
        return None
    if words[at][1][:1] == "m":  # a measure: "身高160厘米", never "下个月8号要去…"
        tail = words[at:]
        if any(f[:1] == "v" for _w, f in tail) or any(f[:1] == "t" for _w, f in words[:at]):
            return None  # a verb after it, or a time before it ("下个月8号…"): an event
    else:
        tail = words[at + 1 :]
    value = _value(tail)
    return (attr, value) if value else None


def _identity_zh(words: list[tuple[str, str]]) -> tuple[str, str] | None:
    """After 是: what the person is ("个<noun>", "做<noun>的", "<noun><noun>"); not "我的<P>" (the
    relation itself) nor an adjective or a clause."""
    if words and words[0][0] in _MEASURE_ZH:
        words = words[1:]
    if not words or words[0][1][:1] in ("r", "a", "d", "u"):
        return None
    first = words[0][1][:1]
    head = words[:-1] if len(words) > 1 and words[-1][0] == "的" else words
    nominal = first == "n" and all(f[:1] in ("n", "m", "q") for _w, f in head)
    agentive = first == "v" and words[-1][0] == "的" and len(words) >= 3
    if not (nominal or agentive):
        return None
    value = _value(words)
    name = current_pack().words("identity", "zh")
    return (name, value) if value and name else None


def _habitual_place_zh(words: list[tuple[str, str]]) -> tuple[str, str] | None:
    """After 在: a place, then one verb ending the clause ("<place>工作呢"): where the person
    habitually does it; the attribute is the verb's place ("工作地")."""
    content = [(w, f) for w, f in words if _TRAIL_ZH.fullmatch(w) is None]
    if len(content) < 2 or content[-1][1][:1] != "v":
        return None
    place = content[:-1]
    if not all(f[:1] in ("n", "s", "f") for _w, f in place):
        return None
    return f"{content[-1][0]}地", "".join(w for w, _f in place)


# English: a copula and an article ("is a nurse"), a naming participle, "works as",
# "lives/works in"; an adverb of degree before the predicate ("is really into") is no
# attribute.
_NAMED_EN = rx.compile(r"^\s*(?:is|'s)\s+(?:named|called)\s+(.+)$", rx.IGNORECASE)
_IDENTITY_EN = rx.compile(r"^\s*(?:is|'s)\s+(?:a|an)\s+([a-z][\w -]*)$", rx.IGNORECASE)
_WORKS_AS_EN = rx.compile(r"^\s*works\s+as\s+(?:a|an)?\s*([\w -]+?)(?:\s+(?:in|at)\s+.*)?$")
_LIVES_EN = rx.compile(r"^\s*(lives|works)\s+(?:in|at)\s+(.+)$", rx.IGNORECASE)


def attribute_en(rest: str) -> tuple[str, str] | None:
    """(attribute, value) of a person's English clause after its subject, or None."""
    rest = rest.strip().rstrip(".!;,")
    pack = current_pack()
    if (m := _NAMED_EN.match(rest)) and pack.words("name", "en"):
        return pack.words("name", "en"), m.group(1).strip()
    if (m := _WORKS_AS_EN.match(rest) or _IDENTITY_EN.match(rest)) and pack.words("identity", "en"):
        return pack.words("identity", "en"), m.group(1).strip()
    if m := _LIVES_EN.match(rest):
        attr = pack.words("home" if m.group(1).lower() == "lives" else "workplace", "en")
        return (attr, m.group(2).strip()) if attr else None
    return None
