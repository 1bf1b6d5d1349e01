"""The attribute a clause gives the entity it is about, and the slot of that Fact
(subject.py): "(subject, attribute)", so another entity's value of the same attribute, or
the user's, is never superseded by it."""

from __future__ import annotations

from collections.abc import Sequence

from spacy.tokens import Token

from extract.chat import person_attrs
from extract.chat.subject import Subject
from extract.chat.subject_en import _THIRD_EN, _THIRD_POSS_EN, _age_en, _main_subject_en
from extract.chat.subject_zh import _AGE_ZH, _COPULA_ZH, _THIRD_ZH, _attribute_zh, _words
from extract.types import Lang
from packs import current as current_pack
from text import rx


def anaphor_attr(text: str, toks: Sequence[Token], lang: Lang) -> str | None:
    """The attribute a clause led by a possessive anaphor gives ("她的 A 是 Z", "其 A 在 Z",
    "his A is Z"), else None."""
    if lang != "zh":
        found = _main_subject_en(list(toks))
        if found is None or found[0].lemma_ not in ("be", "turn"):
            return None
        subj = found[1]
        if subj.lower_ in _THIRD_EN and _age_en(found[0]):  # "she's 71", "he turned 60"
            return current_pack().words("age", "en") or None
        if found[0].lemma_ != "be":
            return None
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


__all__ = ["anaphor_attr", "subject_slot"]
