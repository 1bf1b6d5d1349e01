"""One clause of a chat turn to a FactDraft (facts.py): stripped of its markers, rejected
when it is a greeting, a question or request to the agent, or not the user's statement;
else its slot, kind, polarity, wording, entities, time range, labels and anchors, and
whether it corrects something."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from spacy.tokens import Doc, Token

from corrections.cues import CUE_EN, CUE_ZH, is_weak
from extract.chat import zh_grammar
from extract.chat.clause import _greeting, _group, _kind_en, _kind_zh, _slot, _strip
from extract.chat.lexicon import (
    _ANCHORS,
    _ASKED_ZH,
    _META_ANCHORS,
    _QUESTION_EN,
    _QUESTION_ZH,
    _REQUEST_EN,
    _REQUEST_ZH,
    SLOT_KIND,
    USER_EN,
    USER_ZH,
)
from extract.chat.owner import (
    _CHANGE_ADV_ZH,
    _CHANGE_EN,
    _CHANGE_ZH,
    _KIND_ABOUT,
    _condition,
    _not_about_user,
    _not_stored_about,
    _not_the_users,
    _other_person,
    _owned,
    _reports_an_event,
)
from extract.chat.segments import _Piece
from extract.chat.slots import make_that_en, retracts_en, retracts_zh
from extract.chat.subject import Subject
from extract.chat.subject_slot import subject_slot
from extract.chat.subject_zh import instructs_user_zh
from extract.chat.tokens import _content_tokens, _first_person, _key, _money, _tokens
from extract.chat.wording import (
    _template_en,
    _template_zh,
    _wording_about_en,
    _wording_about_zh,
    _wording_en,
    _wording_zh,
)
from extract.nlp import doc_text, entity_refs
from extract.types import EntityRef, FactDraft, Kind, Lang, MessageRecord, Rejection, author_name
from packs import current as current_pack
from text.timecues import resolve_relative_days, time_range


def _labels(
    text: str, kind: Kind, slot: str | None, ents: Sequence[EntityRef], correction: bool
) -> tuple[str, ...]:
    labels: list[str] = [kind]
    if slot:
        labels.append(slot.split(":", 1)[0])
    labels += current_pack().labels_in(text)  # packs/, "labels"
    if any(e.type == "GPE" for e in ents):
        labels.append("location")
    if correction:
        labels.append("correction")
    return tuple(dict.fromkeys(labels))


def _anchors(text: str, metadata: dict[str, object]) -> tuple[str, ...]:
    found = [f"{kind}:{_group(m)}" for kind, pattern in _ANCHORS for m in pattern.finditer(text)]
    found += [f"{kind}:{metadata[key]}" for key, kind in _META_ANCHORS.items() if metadata.get(key)]
    return tuple(dict.fromkeys(found))


def _reject(msg: MessageRecord, reason: str, text: str = "") -> Rejection:
    return Rejection(source_message_ids=(msg.message_id,), reason=reason, text=text)


def _analyse(
    msg: MessageRecord,
    doc: Doc,
    lang: Lang,
    clause: _Piece,
    correction_in_sentence: bool,
    owner: str | None = None,
    marked: bool = False,
    about: _About | None = None,
) -> FactDraft | Rejection | bool:
    """A FactDraft, a Rejection, or True when the clause is only a correction marker.

    ``owner``: the user's own thing the sentence opened with ("我们 X 的 A 是 …"), which a
    further statement with a bare subject ("W 在 V") is about. ``marked``: a clause of the
    sentence before this one was only a change marker ("Scratch that,", "X 我换了").
    ``about``: the entity of the user's world the clause is about, and how it names it."""
    zh = lang == "zh"
    raw = doc_text(doc)[clause.start : clause.end]
    greeting = _greeting(raw, lang)
    if greeting:
        return _reject(msg, greeting, raw.strip())
    start, end, text, correction = _strip(doc, clause.start, clause.end, lang)
    if not text:
        return True if correction else _reject(msg, "no content (filler only)", raw.strip())
    greeting = _greeting(text, lang)
    if greeting:
        return _reject(msg, greeting, raw.strip())
    slot, value = _slot(doc, start, start + zh_grammar.head_len(text) if zh else end, lang)
    question = raw.rstrip().endswith(("?", "？")) or bool(
        (_QUESTION_ZH if zh else _QUESTION_EN).search(text)
    )
    request = bool((_REQUEST_ZH if zh else _REQUEST_EN).match(text))
    if zh and request and zh_grammar.opens_with_noun(text):
        request = False  # "推荐信…": a noun, not the verb 推荐
    if zh and zh_grammar.asks_for_help(text):
        rest = _after_wrapper(doc, clause, start, end)  # "想问一下：我下周…"
        if rest is not None:
            return _analyse(msg, doc, lang, rest, correction_in_sentence)
        return _reject(msg, "asks the agent for help, states nothing", raw.strip())
    if zh and question and slot and _ASKED_ZH.search(value or ""):
        slot = value = None  # "报名是不是要 …？": the value is what the question asks
    if (question or request) and slot is None:
        rest = _after_wrapper(doc, clause, start, end)
        if rest is not None:  # "Can you remember this for me: I've booked …"
            return _analyse(msg, doc, lang, rest, correction_in_sentence)
        return _reject(
            msg, "question to the agent" if question else "request to the agent", raw.strip()
        )
    toks = [] if zh else _tokens(doc, start, end)
    named = None if zh else _named_antecedent(doc, start, toks)
    kind, polarity = _kind_zh(text) if zh else _kind_en(text, toks)
    reason = (
        None if named else _not_the_users(text, toks, lang, slot is not None, about is not None)
    )
    instructed = zh and instructs_user_zh(text)  # "<P>让我 V": the user's own to do
    if reason is None and not named and about is None and kind != "constraint" and not instructed:
        reason = _other_person(text, toks, lang)
    if reason:
        return _reject(msg, reason, raw.strip())
    if slot:
        kind = SLOT_KIND.get(slot.split(":", 1)[0], kind)
        polarity = "likes" if kind == "preference" else "neutral"
    if about is not None:  # someone else's fact: never the user's preference; its own slot
        if _condition(text):
            kind = "constraint"  # "<P> has diabetes": a constraint to respect for them
        slot, value = subject_slot(about.subject, text, slot, value, lang)
        taste, habit = kind == "preference", kind == "behavior_pattern"
        kind, polarity = _KIND_ABOUT.get(kind, kind), "neutral"
        dated = (
            time_range(text, msg.timestamp, future=True) if kind == "fact" and not slot else None
        )
        if dated is not None:  # a dated event of theirs ("<P> 下个月 12 号 V")
            kind = "plan" if dated[0] > msg.timestamp else "timeline"
        if kind == "plan" and dated is None and time_range(text, msg.timestamp) is None:
            kind = "preference"  # "<P> 一直想去 X": a wish of theirs, no event to come
        asked = "preference" if taste else "behavior_pattern" if habit and kind == "fact" else kind
        reason = _not_stored_about(about.subject, asked, slot, _reports_an_event(text, toks))
        if reason:
            return _reject(msg, reason, raw.strip())
    anchors = _anchors(text, msg.metadata)
    # "我自己的话，X": the lead names the user as the topic of X
    topic = zh and zh_grammar.topic_led(doc_text(doc)[clause.start : start])
    # a clause that marks itself as a change ("Update: from now on X"), or says how things
    # are now after a change marker ("X 我换了，现在 Y"), is about the user's own
    # arrangement, whatever its grammatical subject
    changes = bool((CUE_ZH if zh else CUE_EN).search(raw)) or (marked and is_weak(raw))
    if slot is None and not anchors and not owner and not topic and not changes and not about:
        reason = _not_about_user(text, toks, kind, lang, bool(msg.metadata.get("speaker")))
        if reason:
            return _reject(msg, reason, raw.strip())
    # a Fact names the person it is about: the author the metadata names, else "the user"
    subject = author_name(msg.metadata) or (USER_ZH if zh else USER_EN)
    if about is not None:
        content = (
            _wording_about_zh(text, about.subject, about.via)
            if zh
            else _wording_about_en(doc, start, end, about.subject, about.via)
        )
    elif zh:
        money = _money(doc, start, end)
        content = (
            _template_zh(slot, value or "", money[1] if money else None, subject)
            if (question or request) and slot
            else _wording_zh(text, subject, kind, slot, topic)
        )
    elif slot and make_that_en(_content_tokens(toks)) is not None:
        money = _money(doc, start, end)  # "make that 14 on payment terms": no cue words
        content = _template_en(slot, value or "", money[1] if money else None, subject)
        content = content[:1].upper() + content[1:]
    elif (question or request) and slot:
        money = _money(doc, start, end)
        content = _template_en(slot, value or "", money[1] if money else None, subject)
        content = content[:1].upper() + content[1:]
    else:
        content = _wording_en(doc, start, end, subject, slot, value)
    if zh and (slot or correction):
        content = _CHANGE_ADV_ZH.sub(
            "", content
        )  # "欧洲团队以后默认 Paris" -> "欧洲团队默认 Paris"
    if owner and about is None:
        content = _owned(content, owner)
    if named and content.split(" ", 1)[0].lower() in ("they", "it"):
        content = named[0] + " " + content.split(" ", 1)[1]  # "They status-matched me" keeps who
    content = resolve_relative_days(content, msg.timestamp, zh)
    retracts = retracts_zh(text) if zh else retracts_en(_content_tokens(toks))
    changed = bool(slot) and bool((_CHANGE_ZH if zh else _CHANGE_EN).search(text))
    # a marker earlier in the sentence ("Scratch that, …", "X 我换了，…") cues it too
    cue = correction or marked or changed or bool((CUE_ZH if zh else CUE_EN).search(raw))
    correction = (
        correction
        or correction_in_sentence
        or changed
        or bool(retracts)
        or bool((CUE_ZH if zh else CUE_EN).search(raw))
        or bool(msg.metadata.get("correction"))
    )
    ents = entity_refs(doc, start, end)
    span = time_range(text, msg.timestamp, future=kind == "plan")
    t_start, t_end = span if span else (msg.timestamp, msg.timestamp)
    return FactDraft(
        content=content,
        kind=kind,
        source_message_ids=(msg.message_id,),
        time_start=t_start,
        time_end=t_end,
        lang=lang,
        entities=ents,
        labels=_labels(text, kind, slot, ents, correction),
        slot=slot,
        value=value,
        polarity=polarity,
        explicit=True,
        confidence=1.0,
        is_correction=correction,
        cue=cue,
        key=_key(kind, slot, content),
        anchors=anchors,
        retracts=retracts,
        subject=about.subject.name if about else None,
        subject_kind=about.subject.kind if about else "user",
        subject_aliases=about.subject.aliases if about else (),
    )


@dataclass(frozen=True)
class _About:
    """The entity a clause is about, and how the clause names it: "own" (its subject),
    "carried" (no subject of its own: the one before), or the anaphor standing for it."""

    subject: Subject
    via: str


_THING_ENTS = {"ORG", "PRODUCT", "FAC", "EVENT"}


def _named_antecedent(doc: Doc, start: int, toks: list[Token]) -> tuple[str] | None:
    """ "They status-matched me …" after "I switched to <an organisation>": "they" is that
    organisation, acting on the user — the clause is the user's, bound to the name."""
    subj = next((t for t in _content_tokens(toks)[:1] if t.lower_ in ("they", "it")), None)
    if subj is None or subj.dep_ not in ("nsubj", "nsubjpass"):
        return None
    if not any(_first_person(t) and t.dep_ in ("dobj", "dative", "pobj") for t in toks):
        return None
    before = [e for e in doc.ents if e.end_char <= start and e.label_ in _THING_ENTS]
    if before:
        return (before[-1].text,)
    # or the last run of proper nouns before the clause that names no person
    run: list[Token] = []
    for t in doc:
        if t.idx >= start:
            break
        if t.pos_ == "PROPN" and t.ent_type_ != "PERSON":
            run = run if run and run[-1].i == t.i - 1 else []
            run.append(t)
    return (doc[run[0].i : run[-1].i + 1].text,) if run else None


def _after_wrapper(doc: Doc, clause: _Piece, start: int, end: int) -> _Piece | None:
    """A request or question to the agent that wraps a statement after a colon: the
    statement's piece ("记一下：…", "Can you note this: …"); None without one."""
    text = doc_text(doc)[start:end]
    cut = min((i for i in (text.find(":"), text.find("：")) if i >= 0), default=-1)
    if cut < 0 or not text[cut + 1 :].strip():
        return None
    return _Piece(start + cut + 1, clause.end, clause.sent, clause.hard)
