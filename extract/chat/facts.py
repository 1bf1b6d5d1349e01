"""Deterministic fact extraction from chat turns, English and Chinese, no LLM.

A user turn is split into clauses (sentences, then commas/semicolons/"but"), fragments with
no information of their own are glued back to the clause next to them, and each clause becomes a
FactDraft (kind, slot, polarity, third-person wording, entities, time range) or a Rejection
saying why it cannot affect a future answer. Only ``role == "user"`` turns give facts:
assistant turns are skipped (a fact the user confirmed comes from the user's own turn).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from spacy.language import Language
from spacy.tokens import Doc

from extract.chat import clause_grammar as cg
from extract.chat.answers import answered, joined
from extract.chat.clause import _strip
from extract.chat.clause_fact import _About, _analyse, _reject
from extract.chat.lexicon import _FIRST_PERSON_ZH, _TRAIL
from extract.chat.owner import _CHANGED_ZH, _OPENS_WITH_CHANGE_ZH, _carry
from extract.chat.segments import _clauses, _Piece
from extract.chat.subject import Subject, synonyms
from extract.chat.subject_en import anaphor_led_en, coordinated_en, subject_en
from extract.chat.subject_slot import anaphor_attr
from extract.chat.subject_zh import (
    anaphor_led_zh,
    attribute_led_zh,
    noun_phrase_zh,
    subject_zh,
    subjectless_zh,
)
from extract.chat.tokens import _tokens
from extract.nlp import doc_text
from extract.types import Extraction, FactDraft, Lang, MessageRecord, Rejection
from text.lang import detect_lang

log = logging.getLogger(__name__)


# --- assembly -----------------------------------------------------------------------------


@dataclass
class _Earlier:
    """The user's turn just before the one being read: whom it was about, parsed once and
    only when a clause needs it (an anaphor with no antecedent, a name it may have said)."""

    text: str
    lang: Lang
    nlp: Language

    @cached_property
    def subject(self) -> Subject | None:
        """The entity of the user's world the turn names last (whom a "he" after it means)."""
        last: Subject | None = None
        for _clause, _stripped, about in _walk(self.nlp(self.text), self.lang):
            last = about.subject if about is not None else last
        return last

    def may_name(self, name: str) -> bool:
        """Whether the turn can have named ``name``: it says it (spacing aside), or the pack
        gives it other words an alias may hold."""
        said = self.text.replace(" ", "").lower()
        return name.replace(" ", "").lower() in said or bool(synonyms(name, self.lang))


def _walk(
    doc: Doc, lang: Lang, earlier: _Earlier | None = None
) -> Iterator[tuple[_Piece, tuple[int, int, str, bool], _About | None]]:
    """Each clause of a parsed turn with its stripped text and the entity it is about,
    carrying what the clause before was about and the last entity named."""
    # (sentence, what the clause before was about: None for the user), the last entity named
    prev: tuple[int, Subject | None] = (-1, None)
    named_last: Subject | None = None
    for clause in _clauses(doc, lang):
        stripped = _strip(doc, clause.start, clause.end, lang)
        before = prev[1] if prev[0] == clause.sent else None
        about = _about(doc, lang, stripped, before, named_last, earlier)
        prev = (clause.sent, about.subject if about else None)
        if about is not None:
            named_last = about.subject
        elif lang == "zh":  # "我要去的 X，它的 A 是 Z": the thing a bare phrase names
            named_last = noun_phrase_zh(stripped[2]) or named_last
        yield clause, stripped, about


def _extract_doc(
    msg: MessageRecord, doc: Doc, lang: Lang, earlier: _Earlier | None = None
) -> Extraction:
    """The Facts and Rejections of a parsed turn; ``earlier`` is the user's turn before it,
    for an anaphor or a name this turn has no antecedent for."""
    by_key: dict[str, FactDraft] = {}
    rejections: list[Rejection] = []
    corrected_sents: set[int] = set()
    marked: set[int] = set()  # sentences with a clause that is only a change marker
    carried: str | None = None
    owner: tuple[int, str | None] = (-1, None)  # (sentence, the user's thing it opened with)
    for clause, stripped, about in _walk(doc, lang, earlier):
        owned = None
        if lang == "zh":
            bare = stripped[2]
            if owner[0] != clause.sent:
                found = cg.possessor_zh(bare)
                owner = (clause.sent, found if found and _FIRST_PERSON_ZH.match(found) else None)
            elif owner[1] and cg.bare_subject_zh(bare):
                owned = owner[1]
        result = _analyse(
            msg,
            doc,
            lang,
            clause,
            clause.sent in corrected_sents,
            owned,
            clause.sent in marked,
            about,
        )
        if lang == "zh":
            text = _TRAIL.sub("", doc_text(doc)[clause.start : clause.end].strip())
            if isinstance(result, FactDraft) and carried and _OPENS_WITH_CHANGE_ZH.match(text):
                result = _carry(result, carried, text)
            named = _CHANGED_ZH.match(text)
            carried = named.group("attr") if named else None
        else:
            named = None
        if isinstance(result, FactDraft) and named and not result.slot:
            result = True  # "X 我换了，现在 Y": the clause only says that X changed
        if result is True or stripped[3]:
            marked.add(clause.sent)  # "Scratch that, …": the rest of it is a change
        if result is True:
            corrected_sents.add(clause.sent)  # a bare "更正：" / "Correction:" piece
        elif isinstance(result, FactDraft):
            if result.is_correction:
                corrected_sents.add(clause.sent)
            by_key[result.key] = result  # a later clause on the same slot wins
        elif isinstance(result, Rejection):
            rejections.append(result)
    return Extraction(facts=tuple(by_key.values()), rejections=tuple(rejections))


def _about(
    doc: Doc,
    lang: Lang,
    stripped: tuple[int, int, str, bool],
    before: Subject | None,
    named: Subject | None,
    earlier: _Earlier | None = None,
) -> _About | None:
    """The entity of the user's world a clause is about: its own subject, the one its
    anaphor stands for (named before in this turn, else in the user's turn before), or the
    subject of the clause before when it has none of its own."""
    start, end, text, _ = stripped
    if not text:
        return None
    toks = [] if lang == "zh" else _tokens(doc, start, end)
    if lang == "zh":
        own = subject_zh(text)
        pron: str | None = anaphor_led_zh(text)
        bare = subjectless_zh(text) or attribute_led_zh(text)
    else:
        own = subject_en(toks)
        tok = anaphor_led_en(toks)
        pron = tok.text if tok is not None else None
        bare = coordinated_en(toks)
    if own is not None and not own.mine:  # a name said before: that one ("Ilse 的 A 是 Z")
        known = named
        if known is None and earlier is not None and earlier.may_name(own.name):
            known = earlier.subject
        if known is not None and _names(own, known):
            own = replace(known, attr=own.attr)
    if own is not None:
        return _About(own, "own")
    neuter = pron is not None and pron.lower().rstrip("的") in ("it", "its", "其", "它")
    if pron and named is None and earlier is not None:
        named = earlier.subject
    if pron and named is not None and (neuter or named.kind in ("person", "pet")):
        return _About(replace(named, attr=anaphor_attr(text, toks, lang)), pron)
    if bare and before is not None:
        return _About(replace(before, attr=None), "carried")
    return None


def _names(own: Subject, known: Subject) -> bool:
    """``own`` is one of the names ``known`` goes by (its name, an alias, a word of them)."""
    name = own.name.strip().lower()
    forms = [known.name, *known.aliases]
    return bool(name) and any(name == f.lower() or name in f.lower().split() for f in forms if f)


def _earlier(msg: MessageRecord, en_nlp: Language, zh_nlp: Language) -> _Earlier | None:
    """The user's turn before ``msg``, when there is one (parsed only when asked about)."""
    text = (msg.said_before or "").strip()
    if not text:
        return None
    lang = detect_lang(text, default=msg.lang)
    return _Earlier(text, lang, zh_nlp if lang == "zh" else en_nlp)


def _precheck(msg: MessageRecord) -> Extraction | None:
    if msg.role != "user":
        reason = (
            f"{msg.role} turn: only user turns give user facts"
            if msg.role != "event"
            else "behaviour event: handled by extract_events"
        )
        return Extraction(facts=(), rejections=(_reject(msg, reason),))
    if not msg.content.strip():
        return Extraction(facts=(), rejections=(_reject(msg, "empty message"),))
    if other_speaker(msg):
        reason = "said by another speaker, not the user"
        return Extraction(facts=(), rejections=(_reject(msg, reason),))
    return None


def other_speaker(msg: MessageRecord) -> bool:
    """The metadata names a speaker who is not the user (``"self": true`` says it is)."""
    speaker = msg.metadata.get("speaker")
    return bool(speaker) and msg.metadata.get("self") is not True and speaker != msg.user_id


def extract_chat(msg: MessageRecord, en_nlp: Language, zh_nlp: Language) -> Extraction:
    """Facts from one chat turn; deterministic (same message -> equal Extraction)."""
    early = _precheck(msg)
    if early is not None:
        return early
    answer = answered(msg, en_nlp, zh_nlp)  # a short answer to the assistant's question
    if answer is not None and answer.whole:
        return answer.extraction
    text = msg.content.strip()
    lang = detect_lang(text, default=msg.lang)
    doc = (zh_nlp if lang == "zh" else en_nlp)(text)
    return joined(answer, _extract_doc(msg, doc, lang, _earlier(msg, en_nlp, zh_nlp)))


def extract_chats(
    msgs: Sequence[MessageRecord],
    en_nlp: Language,
    zh_nlp: Language,
    batch_size: int = 64,
    n_process: int = 1,
) -> list[Extraction]:
    """``extract_chat`` over many turns, parsing with ``nlp.pipe``; results in input order."""
    results: list[Extraction | None] = [_precheck(m) for m in msgs]
    # a short answer to the assistant's question before it (answers.py)
    answers = [
        answered(m, en_nlp, zh_nlp) if r is None else None
        for m, r in zip(msgs, results, strict=True)
    ]
    for i, a in enumerate(answers):
        if a is not None and a.whole:
            results[i] = a.extraction
    for lang, nlp in (("en", en_nlp), ("zh", zh_nlp)):
        todo = [
            i
            for i, m in enumerate(msgs)
            if results[i] is None and detect_lang(m.content.strip(), default=m.lang) == lang
        ]
        texts = (msgs[i].content.strip() for i in todo)
        for i, doc in zip(
            todo, nlp.pipe(texts, batch_size=batch_size, n_process=n_process), strict=True
        ):
            earlier = _earlier(msgs[i], en_nlp, zh_nlp)
            said = _extract_doc(msgs[i], doc, "zh" if lang == "zh" else "en", earlier)
            results[i] = joined(answers[i], said)
    log.debug("extracted %d chat turns", len(msgs))
    return [r if r is not None else Extraction(facts=()) for r in results]


__all__ = ["extract_chat", "extract_chats"]
