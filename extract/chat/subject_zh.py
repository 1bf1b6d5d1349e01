"""The entity a Chinese clause is about when it is not the user (subject.py), read from
jieba's words: an owned people or animal noun phrase ("我<P>"), a name with its relation
("N 是我的<P>"), a possessor with an attribute and a value ("X 的 A 是 Z"); and the
clause openings that bind a clause to one before it (an anaphor, a bare noun, no subject)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from extract.chat.subject import _HAN, Subject, _aliases, _people, _people_kind, _pets, thing_kind
from text import rx
from text.zh_words import cut_zh

_MINE_ZH = ("我", "我们", "咱", "咱们", "我家", "咱家")
_THIRD_ZH = ("他", "她", "它", "他们", "她们", "其")
_COPULA_ZH = rx.compile(
    r"^(?:也|都|还|就|已经|一般|通常|现在|目前|一直|总是)*"
    r"(?:是|在|为|叫|有|定在|改在|改到|改成|换成|设在|约在|放在)"
)
_RELATION_ZH = rx.compile(
    r"^(?P<name>[^，,。\s我你您他她它]{1,6}?)是(?:我|我们)的?(?P<rel>[^，,。\s]{1,6})(?:$|[，,])"
)
_CALLED_ZH = rx.compile(
    r"^(?:我|我们)的?(?P<rel>[^，,。\s]{1,6}?)(?P<verb>叫|是)(?P<name>[^，,。\s]{1,6})(?:$|[，,])"
)
_NOUN_FLAGS = ("n", "j", "s")  # nouns, abbreviations, place words
_NAMING_ZH = ("姓", "叫")
_NP_MAX = 5
_LEAD_CHARS = 24  # how far into a clause its opening words are read


def _np_zh(words: Sequence[tuple[str, str]], i: int) -> int:
    """The end of the noun phrase starting at ``i`` (a one-character adjective before a
    surname is part of a name)."""
    j = i
    while j < len(words) and j - i < _NP_MAX:
        w, f = words[j]
        nxt_w, nxt = words[j + 1] if j + 1 < len(words) else ("", "")
        name_prefix = f == "a" and len(w) == 1 and nxt == "nr"
        # a verb before its noun head ("游泳教练": jieba tags both words verbal nouns)
        modifier = f[:1] == "v" and (nxt[:1] == "n" or _people_kind(nxt_w, "zh")) and j == i
        # a Latin word inside the phrase: a modifier before a noun ("cello 老师") or a name
        # after a people noun ("老师 Ilse")
        latin = (
            f == "eng"
            and (
                (w[:1].isupper() and nxt_w == "的" and j == i)  # "<Name>的 A": a possessor
                or nxt[:1] == "n"
                or nxt == "vn"
                or _people_kind(nxt_w, "zh") is not None
                or (j > i and _people_kind(words[j - 1][0], "zh") is not None)
            )
        )
        people = _people_kind(w, "zh") is not None  # people nouns jieba tags as verbs
        verbal_noun = f == "vn" and j > i  # "<noun><verbal noun>"
        if (
            f[:1] in _NOUN_FLAGS
            or name_prefix
            or modifier
            or latin
            or people
            or verbal_noun
            or w == "家"
        ):
            j += 1
            continue
        break
    return j


def _owned_chain_zh(words: Sequence[tuple[str, str]], i: int, end: int) -> int:
    """ "我们<X>的<P>": past the user's group or thing to the person of it ("<X>的<Y><P>"),
    when a people noun follows the 的, or a noun a naming verb follows ("<X>的<Y>姓 N": only
    a person has a surname); else ``end``."""
    if end == i or end + 1 >= len(words) or words[end][0] != "的":
        return end
    last = _np_zh(words, end + 1)
    people = any(_people_kind(w, "zh") for w, _f in words[end + 1 : last])
    if last > end + 1 and (people or _named_after(words, last)):
        return last
    return end + 2 if _named_after(words, end + 2) else end  # one word the parse calls a verb


def _named_after(words: Sequence[tuple[str, str]], end: int) -> bool:
    """A naming verb right after the noun phrase ("<P>姓欧阳", "<P>叫小周")."""
    return end < len(words) and words[end][0] in _NAMING_ZH


def _latin(char: str) -> bool:
    return char.isascii() and char.isalnum()


def _join(words: Sequence[tuple[str, str]]) -> str:
    """Words as one name, a space kept between a Latin word and the next ("<Latin> <P> <Name>")."""
    out = ""
    for w, _f in words:
        if out and (_latin(out[-1]) or _latin(w[:1])):
            out += " "
        out += w
    return out


def _words(text: str) -> tuple[tuple[str, str], ...]:
    """jieba's words of a clause (none without a Chinese character); the last few cached,
    as segmentation and analysis ask about the same clause."""
    return _cut_cached(text) if _HAN.search(text) else ()


@lru_cache(maxsize=512)
def _cut_cached(text: str) -> tuple[tuple[str, str], ...]:
    return tuple((w, f) for w, f in cut_zh(text) if w.strip())


def _person_np_zh(np: Sequence[tuple[str, str]], mine: bool, named: bool = False) -> Subject | None:
    """A person or animal noun phrase: its people/animal noun, and a name after it; with
    ``named`` (a naming verb follows) its last noun is taken as the person's role."""
    heads = [(k, w) for k, w in enumerate(x for x, _f in np) if _people_kind(w, "zh")]
    if not heads and named and mine and np[-1][1][:1] in ("n", "v"):
        heads = [(len(np) - 1, np[-1][0])]
    names = [w for w, f in np if f.startswith("nr")]
    name = _join(np)
    if not heads and (
        not names
        or len(names) != len(np) - sum(f == "a" for _w, f in np)
        or thing_kind(name, "zh") != "thing"  # a name with the head of a thing
    ):
        return None
    if heads:
        k, head = heads[-1]
        kind = _people_kind(head, "zh") or "person"
        rel = next(
            (p for p in _people("zh") | _pets("zh") if head.endswith(p) and len(p) >= 2), head
        )
        after = _join(np[k + 1 :])
        parts = [head, after] if after else [head if head != name else ""]
        if rel != head:
            parts.append(rel)
        return Subject(name, kind, _aliases(parts, rel, "zh"), mine=mine)
    return Subject(name, "person", (), mine=mine)  # a name with an attribute ("N 的 A 是 Z")


def subject_zh(text: str) -> Subject | None:
    """The entity a Chinese clause is about when it is not the user (None otherwise)."""
    named = _named_relation_zh(text)
    if named is not None:
        return named
    words = _words(text)
    if not words:
        return None
    i, mine = 0, False
    if words[0][0] in _MINE_ZH:
        i, mine = 1, True
        if i < len(words) and words[i][0] == "的":
            i += 1
        nxt = words[i + 1][0] if i + 1 < len(words) else ""
        if i < len(words) and words[i][0] == "家" and _people_kind(nxt, "zh"):
            i += 1  # "我们家<P>": the family's, the user's own
        i = _modifier_zh(words, i)
    end = _np_zh(words, i)
    if mine:
        end = _owned_chain_zh(words, i, end)
    if end == i or (not mine and end < len(words) and words[end][0] != "的"):
        thing = None if mine else _thing_zh(words)
        if thing is not None or end == i:
            return thing
    if end < len(words) and words[end][1][:1] == "c":
        return None  # "我和<P>…", "<P>和<P>…": a joined subject
    if _user_comments(words, end):
        return None  # "<P>那边我换了": a topic, then the user as the clause's subject
    np = words[i:end]
    if _INSTRUCTS_ZH.match("".join(w for w, _f in words[end:])):
        return None  # "<P>让我 V": what the user is to do, the user's own Fact
    attr = _attribute_zh(words, end)
    person = _person_np_zh(np, mine, _named_after(words, end))
    if person is not None and not mine and sum(bool(_people_kind(w, "zh")) for w, _f in np) > 1:
        return None  # "<P1>家<P2>": someone else's relative, not one of the user's world
    if person is not None and not mine and _people_kind(np[0][0], "zh"):
        person = replace(person, mine=True)  # a bare relation noun: the user's own
    related = any(_people_kind(w, "zh") for w, _f in np)
    acts = end < len(words) and words[end][1][:1] == "v"  # "N V …": a named person acts
    if person is not None and (person.mine or attr or related or acts):
        return replace(person, attr=attr)
    if mine or person is not None or attr is None:
        return None  # the user's own thing ("我的 X…"), or no attribute and value
    if any(w in _THIRD_ZH or f[:1] == "r" for w, f in np) or (
        np[-1][1][:1] not in ("n", "j") and np[-1][1] != "eng"
    ):
        return None
    name = "".join(w for w, _f in np)
    return Subject(name, thing_kind(name, "zh"), attr=attr)


# what may stand between a topic and its comment ("<N>那边，我…", "<N>的话我…")
_TOPIC_MARKS = ("那边", "这边", "那里", "这里", "方面", "的话", "，", ",", " ")


def _user_comments(words: Sequence[tuple[str, str]], end: int) -> bool:
    """A noun phrase that is the topic of a comment whose subject is the user."""
    k = end
    while k < len(words) and words[k][0] in _TOPIC_MARKS:
        k += 1
    return k > end and k < len(words) and words[k][0] in _MINE_ZH


_THING_FLAGS = ("n", "v", "j", "l", "s", "a", "eng")
_JOINING_ZH = ("与", "和", "及", "跟", "同", "之")
_THING_MAX = 8


def _thing_zh(words: Sequence[tuple[str, str]]) -> Subject | None:
    """ "X 的 A 是 Z" where X is a longer name of a thing (content words only, no anaphor,
    no time first), ending with a noun or a head the pack knows the kind of."""
    de = next((k for k, (w, _f) in enumerate(words[:_THING_MAX]) if w == "的"), None)
    if not de or words[0][1][:1] in ("t", "d", "p", "m"):
        return None
    np = words[:de]
    inner = np[1:-1]  # "X 与 Y 之 Z": joining words inside a longer name
    if any(f[:1] not in _THING_FLAGS for _w, f in (np[0], np[-1])) or any(
        f[:1] not in _THING_FLAGS and w not in _JOINING_ZH for w, f in inner
    ):
        return None
    name = "".join(w for w, _f in np)
    kind = thing_kind(name, "zh")
    noun_led = np[0][1][:1] == "n" and len(np) >= 3  # a long name: its last word may be verbal
    if np[-1][1][:1] not in ("n", "j", "l") and kind == "thing" and not noun_led:
        return None  # "昨天买的 X": a relative clause, not a name
    if any(_people_kind(w, "zh") for w, _f in np):
        return None
    attr = _attribute_zh(words, de)
    return Subject(name, kind, attr=attr) if attr else None


def noun_phrase_zh(text: str) -> Subject | None:
    """A clause that is only a noun phrase with a modifier ("我要去的 X"): the thing X, which
    an anaphor after it (它, 其) stands for; None when a predicate follows the noun."""
    words = _words(text)
    de = max((k for k, (w, _f) in enumerate(words) if w == "的"), default=None)
    if de is None or de + 1 >= len(words):
        return None
    tail = words[de + 1 :]
    if any(f[:1] not in ("n", "j", "l", "s") and f != "eng" for _w, f in tail):
        return None
    name = "".join(w for w, _f in tail)
    if len(name) < 2 or _people_kind(name, "zh"):
        return None
    return Subject(name, thing_kind(name, "zh"))


# a causative or advice verb whose object is the speaker ("<P>让我 V", "<P>建议我 V")
_INSTRUCTS_ZH = rx.compile(
    r"^(?:一直|总是|也|都|还|就|再三|反复|特意|特地)*"
    r"(?:让|叫|要求|嘱咐|叮嘱|建议|劝|提醒|不让|不许|要)(?:我|咱)"
)


def instructs_user_zh(text: str) -> bool:
    """A person's instruction or advice to the user ("<P>让我两周后 V"): the user's Fact."""
    words = _words(text[:_LEAD_CHARS])
    k = 1 if words and words[0][0] in _MINE_ZH else 0
    if k < len(words) and words[k][0] == "的":
        k += 1
    end = _np_zh(words, k)
    return end > k and bool(_INSTRUCTS_ZH.match("".join(w for w, _f in words[end:])))


def _modifier_zh(words: Sequence[tuple[str, str]], i: int) -> int:
    """Past a short adjective phrase with 的 that opens an owned noun phrase ("我最 A 的
    <P>"), when a people or animal noun follows it; else ``i``."""
    for k in range(i, min(i + 3, len(words))):
        w, f = words[k]
        if w == "的":
            nxt = words[k + 1][0] if k + 1 < len(words) else ""
            return k + 1 if k > i and _people_kind(nxt, "zh") else i
        if f[:1] not in ("a", "d"):
            return i
    return i


def _attribute_zh(words: Sequence[tuple[str, str]], end: int) -> str | None:
    """ "的 A 是/在/为 Z" after a noun phrase: A (the value Z follows)."""
    if end >= len(words) or words[end][0] != "的":
        return None
    a = end + 1
    b = a
    while b < len(words) and (
        words[b][1][:1] in (*_NOUN_FLAGS, "t", "v", "l")
        or words[b][1] == "eng"
        or words[b][0] == "的"
    ):
        rest = "".join(w for w, _f in words[b:])
        if b > a and _COPULA_ZH.match(rest):
            break
        b += 1
    attr = "".join(w for w, _f in words[a:b])
    rest = "".join(w for w, _f in words[b:])
    m = _COPULA_ZH.match(rest)
    if not attr or m is None or not rest[m.end() :].strip():
        return None
    return attr


def _named_relation_zh(text: str) -> Subject | None:
    """ "N 是我的<P>" / "我的<P>叫 N": a person named and related to the user."""
    for pattern in (_RELATION_ZH, _CALLED_ZH):
        m = pattern.match(text.strip())
        if m is None:
            continue
        rel, name = m.group("rel"), m.group("name").strip()
        kind = _people_kind(rel, "zh")
        if kind is None or _people_kind(name, "zh") or not _a_name_zh(name):
            continue
        if pattern is _CALLED_ZH and m.group("verb") == "是" and not _a_person_name_zh(name):
            continue  # "我的<P>是<nationality or kind>": what the person is, not a name
        return Subject(rel, kind, _aliases([name], rel, "zh"), mine=True, relation=rel)
    return None


def _a_name_zh(text: str) -> bool:
    """A name: no anaphor, number or quantifier in it ("其中一位" is none)."""
    words = _words(text)
    return bool(words) and all(f[:1] not in ("r", "m", "q", "d", "v") for _w, f in words)


def _a_person_name_zh(text: str) -> bool:
    """A person's name by its form: the parse's personal name, or Latin words."""
    words = _words(text)
    if not words:
        return bool(text) and text[:1].isascii() and text[:1].isalpha()
    return all(f in ("nr", "eng") for _w, f in words)


_AGE_ZH = rx.compile(r"[\d一二两三四五六七八九十百]+\s*(?:周)?岁")


def anaphor_led_zh(text: str) -> str | None:
    """The third-person anaphor a clause opens with ("她的 A…", "其 A…"), else None."""
    if not text.startswith(_THIRD_ZH):
        return None
    words = _words(text)
    if words and words[0][0] in _THIRD_ZH:
        return words[0][0] + ("的" if len(words) > 1 and words[1][0] == "的" else "")
    return None


def noun_led_zh(text: str) -> bool:
    """A clause that opens with a bare common noun (no owner, no person, no first person)."""
    words = _words(text[:_LEAD_CHARS])
    if len(words) < 2 or any(w in _MINE_ZH or w in _THIRD_ZH for w, _f in words):
        return False
    (w, f), nxt = words[0], words[1][0]
    return f == "n" and nxt != "的" and _people_kind(w, "zh") is None


def attribute_led_zh(text: str) -> bool:
    """A clause that is a bare attribute and its value ("<A>是 Z", "<A>：Z"): no owner of
    its own, so it is the attribute of what the clause before spoke of."""
    words = _words(text[:_LEAD_CHARS])
    return noun_led_zh(text) and len(words) > 1 and words[1][0] in ("是", "为", "：", ":")


_SPEAKER_MODAL_ZH = rx.compile(
    r"^(?:也|还|就|都|先|再|只|所以|因此)*(?:得|需要|必须|想|希望|考虑|记得|别|不要|不用|请|帮|麻烦)"
)


def speaker_modal_zh(text: str) -> bool:
    """A clause opening with the speaker's need, wish or request ("得 V", "别 V", "希望 V")."""
    return bool(_SPEAKER_MODAL_ZH.match(text))


def subjectless_zh(text: str) -> bool:
    """A clause that opens with its predicate (time words and adverbs first): "周末也去 V"."""
    if _SPEAKER_MODAL_ZH.match(text):
        return False  # "得 V", "记得 V", "别 V": the speaker's own need or request
    words = _words(text[:_LEAD_CHARS])
    for k, (w, f) in enumerate(words):
        if w in _MINE_ZH or w in ("你", "您"):
            return False
        if f[:1] in ("t", "d", "c", "m", "q") or w.startswith("每"):
            continue  # time words, adverbs, numbers, "每 X"
        # a predicate, or one word left after a time ("每天下午四点 V")
        return f[:1] in ("v", "p") or (k > 0 and k == len(words) - 1 and f[:1] != "r")
    # only times and a number with its measure: a nominal predicate ("今年 46 岁")
    return bool(_AGE_ZH.search(text))


__all__ = [
    "anaphor_led_zh",
    "attribute_led_zh",
    "instructs_user_zh",
    "noun_led_zh",
    "noun_phrase_zh",
    "speaker_modal_zh",
    "subject_zh",
    "subjectless_zh",
]
