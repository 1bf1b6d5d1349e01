"""Whose fact a clause states when it is not the user's (facts.py): the subject of the
clause as an entity of the user's world (a person by relation and/or name, an animal, an
occasion, a place, a body of people, an object, another thing) with its other names and the
attribute the clause gives it.

Found by structure: a subject noun phrase owned by the user ("我<P>", "my <P>") whose head is a
people or animal noun of the pack, a person's name, a possessor with an attribute and a value
("X 的 A 在 Z", "the X's A is Z", "the A of X is Z"), a name introduced by its relation
("N 是我的<P>", "N is my <P>"). Only grammar words live here; the nouns for people, animals
and kinds of things come from the pack.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from spacy.tokens import Token

from extract.chat import person_attrs
from extract.chat.lexicon import USER_EN, USER_ZH
from extract.packs import current as current_pack
from extract.text import rx
from extract.text.zh_words import cut_zh
from extract.types import Lang


@dataclass(frozen=True)
class Subject:
    """An entity a clause is about; ``mine``: the user named it as theirs ("my", 我)."""

    name: str
    kind: str  # person, pet, event, place, org, item, thing
    aliases: tuple[str, ...] = ()
    mine: bool = False
    attr: str | None = None  # the attribute the clause gives it ("地点", "venue", "年龄")
    relation: str | None = None  # the relation it was introduced by, with a name as alias

    def display(self, lang: Lang) -> str:
        """How a Fact names it: "用户的<P>N", "the user's <P>", "X"."""
        name = self.name
        if self.relation is not None and self.aliases:
            name = f"{name}{self.aliases[0]}" if lang == "zh" else f"{name} {self.aliases[0]}"
        if lang == "zh":
            return f"{USER_ZH}的{name}" if self.mine else name
        return f"{USER_EN}'s {name}" if self.mine else name


def _lower(words: tuple[str, ...] | list[str]) -> set[str]:
    return {w.lower() for w in words}


def _people(lang: Lang) -> set[str]:
    return _lower(current_pack().people.get(lang, ()))


def _pets(lang: Lang) -> set[str]:
    return _lower(current_pack().pets.get(lang, ()))


def synonyms(word: str, lang: Lang) -> tuple[str, ...]:
    """The pack's other words for a people noun (its synonym group)."""
    low = word.lower()
    out: list[str] = []
    for group in current_pack().relations.get(lang, ()):
        if low in _lower(group):
            out += [w for w in group if w.lower() != low]
    return tuple(dict.fromkeys(out))


def thing_kind(head: str, lang: Lang) -> str:
    """The kind the pack's head-noun cues give (a Chinese head by its ending, the longest
    cue first); "thing" otherwise."""
    best, size = "thing", 0
    low = head.lower()
    for kind, by_lang in current_pack().subject_kinds.items():
        for cue in by_lang.get(lang, ()):
            hit = low.endswith(cue) if lang == "zh" else low == cue.lower()
            if hit and len(cue) > size:
                best, size = kind, len(cue)
    return best


def _people_kind(word: str, lang: Lang) -> str | None:
    """person, or the animal kind, when ``word`` is (or, in Chinese, ends with) a people
    or animal noun of the pack."""
    low = word.lower()
    for kind, words in (("pet", _pets(lang)), ("person", _people(lang))):
        if low in words or (lang == "zh" and any(low.endswith(w) for w in words if len(w) >= 2)):
            return kind
    return None


def _aliases(parts: list[str], head: str, lang: Lang) -> tuple[str, ...]:
    out = [p for p in parts if p]
    out += list(synonyms(head, lang))
    return tuple(dict.fromkeys(out))


# --- Chinese --------------------------------------------------------------------------------

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
    r"^(?:我|我们)的?(?P<rel>[^，,。\s]{1,6}?)(?:叫|是)(?P<name>[^，,。\s]{1,6})(?:$|[，,])"
)
_NOUN_FLAGS = ("n", "j", "s")  # nouns, abbreviations, place words
_NP_MAX = 5
_LEAD_CHARS = 24  # how far into a clause its opening words are read


def _np_zh(words: Sequence[tuple[str, str]], i: int) -> int:
    """The end of the noun phrase starting at ``i`` (a one-character adjective before a
    surname is part of a name)."""
    j = i
    while j < len(words) and j - i < _NP_MAX:
        w, f = words[j]
        nxt = words[j + 1][1] if j + 1 < len(words) else ""
        name_prefix = f == "a" and len(w) == 1 and nxt == "nr"
        modifier = f[:1] == "v" and nxt[:1] == "n" and j == i  # a verb before its noun head
        if f[:1] in _NOUN_FLAGS or name_prefix or modifier or w == "家":
            j += 1
            continue
        break
    return j


def _words(text: str) -> tuple[tuple[str, str], ...]:
    """jieba's words of a clause (none without a Chinese character); the last few cached,
    as segmentation and analysis ask about the same clause."""
    return _cut_cached(text) if _HAN.search(text) else ()


@lru_cache(maxsize=512)
def _cut_cached(text: str) -> tuple[tuple[str, str], ...]:
    return tuple((w, f) for w, f in cut_zh(text) if w.strip())


_HAN = rx.compile(r"[\u4e00-\u9fff]")


def _person_np_zh(np: Sequence[tuple[str, str]], mine: bool) -> Subject | None:
    """A person or animal noun phrase: its people/animal noun, and a name after it."""
    heads = [(k, w) for k, w in enumerate(x for x, _f in np) if _people_kind(w, "zh")]
    names = [w for w, f in np if f.startswith("nr")]
    name = "".join(w for w, _f in np)
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
        after = "".join(w for w, _f in np[k + 1 :])
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
        i = _modifier_zh(words, i)
    end = _np_zh(words, i)
    if end == i or (not mine and end < len(words) and words[end][0] != "的"):
        thing = None if mine else _thing_zh(words)
        if thing is not None or end == i:
            return thing
    if end < len(words) and words[end][1][:1] == "c":
        return None  # "我和<P>…", "<P>和<P>…": a joined subject
    np = words[i:end]
    if _INSTRUCTS_ZH.match("".join(w for w, _f in words[end:])):
        return None  # "<P>让我 V": what the user is to do, the user's own Fact
    attr = _attribute_zh(words, end)
    person = _person_np_zh(np, mine)
    if person is not None and not mine and _people_kind(np[0][0], "zh"):
        person = replace(person, mine=True)  # a bare relation noun: the user's own
    related = any(_people_kind(w, "zh") for w, _f in np)
    acts = end < len(words) and words[end][1][:1] == "v"  # "N V …": a named person acts
    if person is not None and (person.mine or attr or related or acts):
        return replace(person, attr=attr)
    if mine or person is not None or attr is None:
        return None  # the user's own thing ("我的 X…"), or no attribute and value
    if any(w in _THIRD_ZH or f[:1] == "r" for w, f in np) or np[-1][1][:1] not in ("n", "j"):
        return None
    name = "".join(w for w, _f in np)
    return Subject(name, thing_kind(name, "zh"), attr=attr)


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
        words[b][1][:1] in (*_NOUN_FLAGS, "t", "v", "l") or words[b][0] == "的"
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
        return Subject(rel, kind, _aliases([name], rel, "zh"), mine=True, relation=rel)
    return None


def _a_name_zh(text: str) -> bool:
    """A name: no anaphor, number or quantifier in it ("其中一位" is none)."""
    words = _words(text)
    return bool(words) and all(f[:1] not in ("r", "m", "q", "d", "v") for _w, f in words)


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


def anaphor_attr(text: str, toks: Sequence[Token], lang: Lang) -> str | None:
    """The attribute a clause led by a possessive anaphor gives ("她的 A 是 Z", "其 A 在 Z",
    "his A is Z"), else None."""
    if lang != "zh":
        found = _main_subject_en(list(toks))
        if found is None or found[0].lemma_ != "be":
            return None
        subj = found[1]
        if not any(c.dep_ == "poss" and c.lower_ in _THIRD_POSS_EN for c in subj.children):
            return None
        mods = [c.lemma_.lower() for c in subj.children if c.dep_ == "compound" and c.i < subj.i]
        return " ".join([*mods, subj.lemma_.lower()])
    words = _words(text)
    if len(words) < 3 or words[0][0] not in _THIRD_ZH:
        return None
    if words[1][0] == "的":
        return _attribute_zh(words, 1)
    if words[0][0] == "其":  # "其 A 是 Z": 其 is "its/their"
        return _attribute_zh((words[0], ("的", "uj"), *words[1:]), 1)
    return None


_SPEAKER_MODAL_ZH = rx.compile(
    r"^(?:也|还|就|都|先|再|所以|因此)*(?:得|需要|必须|想|希望|记得|别|不要|不用|请|帮|麻烦)"
)


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
    return False


# --- English --------------------------------------------------------------------------------

_FIRST_POSS_EN = {"my", "our"}
_THIRD_EN = {"he", "she", "they", "it"}
_THIRD_POSS_EN = {"his", "her", "their", "its"}
_SUBJ_DEPS = ("nsubj", "nsubjpass")
_KEEP_MODS = ("compound", "amod")


_EMBEDDED = {"relcl", "advcl", "acl", "ccomp", "xcomp", "csubj", "pcomp"}


def _main_subject_en(toks: list[Token]) -> tuple[Token, Token] | None:
    """The clause's main subject and its verb: the first subject not inside an embedded
    clause (a subject under an auxiliary the parser took for the verb counts)."""
    ids = {t.i for t in toks}
    for subj in (t for t in toks if t.dep_ in _SUBJ_DEPS):
        verb, up = subj.head, subj.head
        embedded = False
        while up.head.i in ids and up.dep_ != "ROOT" and up.head.i != up.i:
            embedded = embedded or up.dep_ in _EMBEDDED
            up = up.head
        if not embedded:
            return verb, subj
    return None


def _np_text_en(head: Token) -> str:
    """A noun with its compounds and adjectives."""
    mods = [c for c in head.children if c.dep_ in _KEEP_MODS and c.i < head.i]
    return " ".join([*(m.text for m in mods), head.text])


def _owned_en(noun: Token) -> bool:
    return any(c.dep_ == "poss" and c.lower_ in _FIRST_POSS_EN for c in noun.children)


def _person_en(noun: Token, attr: str | None = None) -> Subject | None:
    """A person or animal the user names as theirs ("my (A) <P>", "my <P> N"), or a person
    by name. A people noun with no determiner ("Mom says …") is the user's own."""
    mine = _owned_en(noun) or (
        noun.pos_ in ("NOUN", "PROPN") and not any(c.dep_ in ("det", "poss") for c in noun.children)
    )
    kind = _people_kind(noun.lemma_, "en") or _people_kind(noun.text, "en")
    if kind is not None and mine:
        name = next((c.text for c in noun.children if c.dep_ == "appos" and c.pos_ == "PROPN"), "")
        np = _np_text_en(noun)
        full = f"{np} {name}".strip()
        parts = [noun.text if noun.text != full else "", name]
        return Subject(full, kind, _aliases(parts, noun.text, "en"), mine=True, attr=attr)
    if noun.pos_ == "PROPN" and noun.ent_type_ == "PERSON" and not _HAN.search(noun.doc.text):
        return Subject(_np_text_en(noun), "person", (), attr=attr)
    return None


def _named_relation_en(verb: Token, subj: Token) -> Subject | None:
    """ "N is my <P>": the relation, with the name as its alias."""
    if verb.lemma_ != "be" or subj.pos_ != "PROPN":
        return None
    rel = next((c for c in verb.children if c.dep_ == "attr"), None)
    if rel is None or not _owned_en(rel) or _people_kind(rel.lemma_, "en") is None:
        return None
    name = " ".join(t.text for t in subj.subtree if t.pos_ == "PROPN")
    kind = _people_kind(rel.lemma_, "en") or "person"
    rel_np = _np_text_en(rel)
    return Subject(rel_np, kind, _aliases([name], rel.text, "en"), mine=True, relation=rel_np)


def _possessor_en(subj: Token, verb: Token) -> Subject | None:
    """ "the X's A is Z", "my <P>'s A is Z", "the A of X is Z"."""
    if verb.lemma_ != "be" or subj.pos_ != "NOUN":
        return None
    mods = [c.lemma_.lower() for c in subj.children if c.dep_ == "compound" and c.i < subj.i]
    attr = " ".join([*mods, subj.lemma_.lower()])
    owner = next(
        (c for c in subj.children if c.dep_ == "poss" and c.pos_ in ("NOUN", "PROPN")), None
    )
    if owner is None:
        of = next((c for c in subj.children if c.dep_ == "prep" and c.lower_ == "of"), None)
        owner = next((g for g in of.children if g.dep_ == "pobj"), None) if of else None
        if owner is None or owner.pos_ not in ("NOUN", "PROPN"):
            return None
        plain = owner.pos_ != "PROPN" and thing_kind(owner.lemma_, "en") == "thing"
        if plain and _people_kind(owner.lemma_, "en") is None:
            return None  # "the A of X" with X no name, no person, no kind of thing
    person = _person_en(owner, attr)
    if person is not None:
        return person
    if _owned_en(owner):
        return None  # the user's own thing ("my X's A")
    name = _np_text_en(owner)
    kind = "person" if owner.ent_type_ == "PERSON" else thing_kind(owner.lemma_, "en")
    return Subject(name, kind, attr=attr)


def subject_en(toks: list[Token]) -> Subject | None:
    """The entity an English clause is about when it is not the user (None otherwise)."""
    found = _main_subject_en(toks)
    if found is None:
        return None
    verb, subj = found
    if any(c.dep_ == "conj" for c in subj.children):
        return None  # "my <P> and I", "my <P> and <P>": a joined subject
    named = _named_relation_en(verb, subj)
    if named is not None:
        return named
    if subj.pos_ in ("NOUN", "PROPN"):
        attr = (current_pack().words("age", "en") or None) if _age_en(verb) else None
        return _person_en(subj, attr) or _possessor_en(subj, verb)
    return None


def _age_en(verb: Token) -> bool:
    """ "X is 58 (years old)", "X turned 59"."""
    if verb.lemma_ not in ("be", "turn"):
        return False
    return any(
        c.like_num or any(g.like_num for g in c.children) for c in verb.children if c.i > verb.i
    ) and any(t.lower_ in ("old", "years", "year") or t.like_num for t in verb.rights)


def anaphor_led_en(toks: list[Token]) -> Token | None:
    """The third-person anaphor subject (or possessive) a clause opens with."""
    found = _main_subject_en(toks)
    if found is None:
        return None
    _verb, subj = found
    if subj.lower_ in _THIRD_EN and subj.tag_ == "PRP":
        return subj
    poss = next((c for c in subj.children if c.dep_ == "poss"), None)
    if poss is not None and poss.lower_ in _THIRD_POSS_EN:
        return poss
    return None


def coordinated_en(toks: list[Token]) -> bool:
    """A predicate that shares the subject of the clause before it, which is not the
    speaker ("…, and V-s X" after "My <P> V-s Y")."""
    body = [t for t in toks if not (t.is_punct or t.dep_ in ("cc", "advmod", "intj"))]
    if not body:
        return False
    verb = body[0]
    ids = {t.i for t in toks}
    if verb.dep_ != "conj" or verb.head.i in ids or verb.pos_ not in ("VERB", "AUX"):
        return False
    if any(c.dep_ in _SUBJ_DEPS for c in verb.children):
        return False
    head = verb
    while head.dep_ == "conj" and head.head.i != head.i:
        head = head.head
    shared = next((c for c in head.children if c.dep_ in _SUBJ_DEPS), None)
    return shared is not None and shared.lower_ not in ("i", "we")


# --- slots ----------------------------------------------------------------------------------


def subject_slot(
    subject: Subject, text: str, slot: str | None, value: str | None, lang: Lang
) -> tuple[str | None, str | None]:
    """The slot of a Fact about ``subject``: (subject, attribute), so another entity's (or
    the user's) value of the same attribute is never superseded by it; worded like the
    attribute itself ("<P>的 A", "<P>'s A")."""
    attr = subject.attr
    if lang == "zh" and (attr is None or attr == current_pack().words("age", "zh")):
        age = _AGE_ZH.search(text)
        if age is not None:
            attr, value = current_pack().words("age", "zh") or None, age.group(0).strip()
    head, _, qual = (slot or "").partition(":")
    if attr is None and qual and qual == _KEY_CHARS.sub("_", subject.name.lower()):
        attr = head  # "my <P>'s A is Z": the slot the user-side parse qualified by its owner
    if attr is None and subject.kind in ("person", "pet"):
        found = _described(subject, text, lang)  # "<P>身高160厘米", "<P> is called Y"
        if found is not None:
            attr, value = found
    if attr is None:
        return None, None
    if lang == "zh":
        if attr == subject.attr:
            value = _value_zh(text, attr) or value
        return f"{subject.name}的{attr}", value
    if attr == current_pack().words("age", "en"):
        value = next((w for w in text.split() if w.isdigit()), value)
    elif value is None and (m := _COPULA_EN.search(text)) is not None:
        value = m.group(1).strip(" .,;!") or None
    return f"{subject.name.lower()}'s {attr.replace('_', ' ')}", value


def _described(subject: Subject, text: str, lang: Lang) -> tuple[str, str] | None:
    """An attribute the clause's predicate gives the person (`person_attrs`)."""
    names = (subject.name, *subject.aliases)
    if lang == "zh":
        return person_attrs.attribute_zh(person_attrs.after_subject_zh(text, names))
    low = text.lower()
    for name in sorted(names, key=len, reverse=True):
        at = low.find(name.lower()) if name else -1
        if at >= 0:
            return person_attrs.attribute_en(text[at + len(name) :])
    return None


_KEY_CHARS = rx.compile(r"[^\w]+")
_COPULA_EN = rx.compile(r"\b(?:is|are|was|were)\s+(?:now\s+|still\s+)?(.+)$", rx.IGNORECASE)


def _value_zh(text: str, attr: str) -> str | None:
    at = text.find(attr)
    if at < 0:
        return None
    rest = text[at + len(attr) :]
    m = _COPULA_ZH.match(rest)
    if m is None:
        return None
    return _CLAUSE_END_ZH.split(rest[m.end() :], maxsplit=1)[0].strip() or None


_CLAUSE_END_ZH = rx.compile(r"[，,。；;！!？?]")


__all__ = [
    "Subject",
    "anaphor_attr",
    "anaphor_led_en",
    "anaphor_led_zh",
    "coordinated_en",
    "instructs_user_zh",
    "noun_led_zh",
    "noun_phrase_zh",
    "subject_en",
    "subject_slot",
    "subject_zh",
    "subjectless_zh",
    "synonyms",
    "thing_kind",
]
