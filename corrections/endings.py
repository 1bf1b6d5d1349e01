"""A change in the user's life that ends a need (an animal gone, a vehicle parted with): the
things it takes out of the user's life, read by structure. The ending predicates are pack
vocabulary (``endings``); the thing is the predicate's object ("<ending> my X") or, with
nothing after the predicate, its subject ("our X <ending>", "X<ending>"). graph/fact_writes.py
retires the user's older active Facts naming the thing.

Only things the user owns or that are definite count ("my X", "the X", 家的X): "<ending> 3
X" is a sale of some, not a loss; "his X" / "Dana's X" is someone else's."""

from __future__ import annotations

from packs import Pack
from packs import current as current_pack
from text import rx
from text.lang import Lang
from text.zh_words import cut_zh

_WORD = rx.compile(r"[A-Za-z][A-Za-z'-]*|\d+|[,.;:!?]")
# the user's own or a definite thing
_OWN_EN = frozenset(("my", "our", "the", "user's", "users'"))
_OTHERS_EN = frozenset(("his", "her", "their", "a", "an", "some", "someone's", "its"))
# what ends the thing's phrase after the predicate: prepositions, time words, conjunctions
# fmt: off
_STOP_EN = frozenset((
    "to", "for", "at", "in", "on", "with", "from", "by", "after", "before", "since", "because",
    "last", "this", "next", "yesterday", "today", "ago", "recently", "and", "but", "so", "as",
    "earlier", "finally", "already", "out", "off", "up", "back", "when", "while", "year",
    "user", "users", "others",
))
# between the thing and the predicate: auxiliaries and adverbs ("has just died")
_AUX_EN = frozenset((
    "has", "have", "had", "was", "were", "is", "are", "been", "just", "recently", "finally",
    "sadly", "unfortunately", "got", "had", "to", "already", "also",
))
# fmt: on
_NOT_AFTER = frozenset(("out",))  # "<ending> out" (tickets all gone): no thing of the user's
_MAX_PHRASE = 3
_THING_FLAGS_ZH = ("n", "nz", "ng", "nr", "nrt", "eng")
_SKIP_FLAGS_ZH = ("d", "p", "u", "t", "m", "q", "f", "r")
_USER_ZH = ("用户", "用户等人", "我", "我们", "我家", "咱家", "家")


def ended_things(content: str, lang: Lang, pack: Pack | None = None) -> tuple[str, ...]:
    """The things ``content`` says left the user's life; () when it says no such thing."""
    pack = pack or current_pack()
    if lang == "zh":
        return _ended_zh(content, pack)
    return _ended_en(content, pack)


# no more of a kind of thing: "没有<kind>了", "不再养<kind>", "no more <kind>s", "no longer
# have any <kind>s", "don't have a <kind> any more"
_NO_MORE_ZH = rx.compile(r"(?:没有|不再有|不再养|不养)(?:任何)?(?P<kind>[\u4e00-\u9fff]{1,4}?)了")
_NO_MORE_EN = rx.compile(
    r"\b(?:no\s+more|no\s+longer\s+(?:ha(?:ve|s)|owns?|keeps?)\s+(?:any|a|an)|"
    r"(?:don't|do\s+not|doesn't)\s+(?:have|own|keep)\s+(?:any|a|an))\s+(?P<kind>[a-z]+?)s?\b",
    rx.IGNORECASE,
)


def ended_kinds(content: str, lang: Lang, pack: Pack | None = None) -> tuple[str, ...]:
    """The kinds of the user's world ``content`` says the user no longer has any of ("
    <X>没有<pet word>了"): "pet" when the word is the pack's word for the kind (``pet_kind``).
    graph/fact_writes.py retires the older Facts about every subject of that kind."""
    pack = pack or current_pack()
    found = (_NO_MORE_ZH if lang == "zh" else _NO_MORE_EN).search(content)
    if found is None:
        return ()
    word = found.group("kind").lower()
    kind_word = pack.words("pet_kind", lang).lower()
    return ("pet",) if kind_word and word == kind_word else ()


def _pattern(pack: Pack, lang: str) -> rx.Pattern:
    terms = pack.endings.get(lang, ())
    if lang == "zh":
        return rx.compile(pack.alternation(terms))
    return rx.compile(r"\b(?:" + pack.alternation(terms) + r")\b", rx.IGNORECASE)


def _ended_en(content: str, pack: Pack) -> tuple[str, ...]:
    m = _pattern(pack, "en").search(content)
    if not m:
        return ()
    after = [w.group(0) for w in _WORD.finditer(content[m.end() :])]
    if after and after[0].lower() in _NOT_AFTER:
        return ()
    thing = _object_en(after)
    if thing is None:
        before = [w.group(0) for w in _WORD.finditer(content[: m.start()])]
        thing = _subject_en(before)
    return tuple(dict.fromkeys(thing or ()))


def _object_en(words: list[str]) -> list[str] | None:
    """The thing after the predicate ("my X last month" -> X); None when nothing
    follows, [] when what follows is no thing of the user's."""
    i = 0
    owned = False
    while i < len(words) and (words[i].lower() in _OWN_EN | _OTHERS_EN or _owner(words[i])):
        if words[i].lower() in _OTHERS_EN or _owner(words[i]):
            return []  # "his car", "Dana's car": someone else's
        owned = True
        i += 1
    phrase = _phrase(words[i:])
    if not phrase:  # nothing after the predicate but a stop: the thing is its subject
        rest = words[i:]
        return None if i == 0 and (not rest or not rest[0][:1].isalnum() or _stop(rest[0])) else []
    return _heads(phrase) if owned or phrase[0][:1].isupper() else []


def _subject_en(words: list[str]) -> list[str]:
    """The thing before the predicate ("the user's X Name has just" -> X, Name)."""
    j = len(words)
    while j > 0 and words[j - 1].lower() in _AUX_EN:
        j -= 1
    start = j
    while start > 0 and j - start < _MAX_PHRASE and _content(words[start - 1]):
        start -= 1
    phrase = words[start:j]
    owner = words[start - 1].lower() if start > 0 else ""
    if not phrase or owner in _OTHERS_EN or _owner(owner):
        return []
    if owner in _OWN_EN or phrase[0][:1].isupper():
        return _heads(phrase)
    return []


def _phrase(words: list[str]) -> list[str]:
    out: list[str] = []
    for w in words[:_MAX_PHRASE]:
        if not _content(w):
            break
        out.append(w)
    return out


def _owner(word: str) -> bool:
    """A possessive other than the user's ("Dana's")."""
    return word.lower().endswith(("'s", "s'")) and word.lower() not in _OWN_EN


def _stop(word: str) -> bool:
    return word.lower() in _STOP_EN


def _content(word: str) -> bool:
    low = word.lower()
    return (
        word[:1].isalpha()
        and low not in _STOP_EN
        and low not in _OWN_EN | _OTHERS_EN
        and not _owner(word)
    )


def _heads(phrase: list[str]) -> list[str]:
    """The head noun (the last common word) and any name in the phrase."""
    common = [w for w in phrase if not w[:1].isupper()]
    names = [w for w in phrase if w[:1].isupper()]
    return ([common[-1]] if common else []) + names


def _ended_zh(content: str, pack: Pack) -> tuple[str, ...]:
    m = _pattern(pack, "zh").search(content)
    if not m:
        return ()
    words, pos = [], 0
    for w, f in cut_zh(content):  # cut as a whole: a lone "车" is no noun to jieba
        if w.strip():
            words.append((w, f, pos))
        pos += len(w)
    before = [(w, f) for w, f, at in words if at + len(w) <= m.start()]
    after = [(w, f) for w, f, at in words if at >= m.end()]
    people = set(pack.people.get("zh", ()))
    if any(p in content[: m.start()] for p in people):
        return ()  # someone else's thing ("哥哥的车卖了")
    while before and before[-1][1].startswith(_SKIP_FLAGS_ZH):
        before.pop()  # 把, 已经, 上个月, 都
    if before and before[-1][1].startswith(_THING_FLAGS_ZH) and before[-1][0] not in _USER_ZH:
        return (before[-1][0],)
    for w, f in after[:3]:  # "卖了车" / "卖了那辆旧车"
        if f.startswith(_THING_FLAGS_ZH) and w not in _USER_ZH:
            return (w,)
    return ()


__all__ = ["ended_kinds", "ended_things"]
