"""Whose fact a clause states when it is not the user's (facts.py): the subject of the
clause as an entity of the user's world (a person by relation and/or name, an animal, an
occasion, a place, a body of people, an object, another thing) with its other names and the
attribute the clause gives it.

Found by structure: a subject noun phrase owned by the user ("我<P>", "my <P>") whose head is a
people or animal noun of the pack, a person's name, a possessor with an attribute and a value
("X 的 A 在 Z", "the X's A is Z", "the A of X is Z"), a name introduced by its relation
("N 是我的<P>", "N is my <P>"). Only grammar words live here; the nouns for people, animals
and kinds of things come from the pack. This module holds the Subject and the pack's nouns;
the Chinese side is in subject_zh.py, the English one in subject_en.py, the attribute and
the slot of a Fact about a subject in subject_slot.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from extract.chat.lexicon import USER_EN, USER_ZH
from extract.types import Lang
from packs import current as current_pack
from packs.pack import Pack
from text import rx


@dataclass(frozen=True)
class Subject:
    """An entity a clause is about; ``mine``: the user named it as theirs ("my", 我)."""

    name: str
    kind: str  # person, pet, event, place, org, item, thing
    aliases: tuple[str, ...] = ()
    mine: bool = False
    attr: str | None = None  # the attribute the clause gives it ("地点", "venue", "年龄")
    relation: str | None = None  # the relation it was introduced by, with a name as alias

    def names(self) -> tuple[str, ...]:
        """Every name it goes by: its own, its aliases, the relation it was introduced by."""
        return (self.name, *self.aliases, self.relation or "")

    def display(self, lang: Lang) -> str:
        """How a Fact names it: "用户的<P>N", "the user's <P>", "X"."""
        name = self.name
        if self.relation is not None and self.aliases:
            name = f"{name}{self.aliases[0]}" if lang == "zh" else f"{name} {self.aliases[0]}"
        if lang == "zh":
            gap = " " if name[:1].isascii() and name[:1].isalnum() else ""
            return f"{USER_ZH}的{gap}{name}" if self.mine else name
        return f"{USER_EN}'s {name}" if self.mine else name


def _lower(words: tuple[str, ...] | list[str]) -> set[str]:
    return {w.lower() for w in words}


def _people(lang: Lang) -> frozenset[str]:
    """The pack's people nouns and its occupations ("my <job>" is a person)."""
    return _people_of(current_pack(), lang)


@lru_cache(maxsize=8)
def _people_of(pack: Pack, lang: Lang) -> frozenset[str]:
    return frozenset(
        w.lower() for w in (*pack.people.get(lang, ()), *_plain(pack.jobs.get(lang, ())))
    )


def _plain(words: Iterable[str]) -> list[str]:
    """The entries of a pack list that are words, not patterns ("<word>?")."""
    return [w for w in words if w.replace(" ", "").isalnum()]


@lru_cache(maxsize=8)
def _terms(pack: Pack, field: str) -> frozenset[str]:
    lists: dict[str, tuple[str, ...]] = getattr(pack, field)
    return frozenset(w.lower() for words in lists.values() for w in _plain(words))


def named_by(names: Iterable[str], field: str) -> bool:
    """Whether one of `names` holds a word of the pack's list `field` ("household", "jobs")
    in either language: an English word whole, a Chinese one inside the name."""
    terms = _terms(current_pack(), field)
    for name in (n.lower() for n in names if n):
        words = set(name.split())
        if any(t in words if t.isascii() else t in name for t in terms):
            return True
    return False


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


_HAN = rx.compile(r"[\u4e00-\u9fff]")


__all__ = ["Subject", "synonyms", "thing_kind"]
