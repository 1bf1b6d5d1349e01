"""Deterministic fact extraction from chat turns, English and Chinese, no LLM.

A user turn is split into clauses (sentences, then commas/semicolons/"but"), fragments with
no information of their own are glued back to the clause next to them, and each clause becomes a
FactDraft (kind, slot, polarity, third-person wording, entities, time range) or a Rejection
saying why it cannot affect a future answer. Only ``role == "user"`` turns give facts:
assistant turns are skipped (a fact the user confirmed comes from the user's own turn).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace

from spacy.language import Language
from spacy.tokens import Doc, Token

from extract.chat import clause_grammar as cg
from extract.chat import zh_grammar
from extract.chat.answers import answered, joined
from extract.chat.clause import _concrete_en, _greeting, _group, _kind_en, _kind_zh, _slot, _strip
from extract.chat.lexicon import (
    _ANCHORS,
    _ASKED_ZH,
    _FIRST_PERSON_ZH,
    _HAN,
    _META_ANCHORS,
    _PRED_START_ZH,
    _QUESTION_EN,
    _QUESTION_ZH,
    _REQUEST_EN,
    _REQUEST_ZH,
    _SECOND_PERSON_ZH,
    _TRAIL,
    SLOT_KIND,
    USER_EN,
    USER_ZH,
)
from extract.chat.owner import (
    _CHANGE_ADV_ZH,
    _CHANGE_EN,
    _CHANGE_ZH,
    _CHANGED_ZH,
    _OPENS_WITH_CHANGE_ZH,
    _carry,
    _not_the_users,
    _other_person,
    _owned,
)
from extract.chat.segments import _clauses, _Piece
from extract.chat.slots import make_that_en, retracts_en, retracts_zh
from extract.chat.subject import (
    Subject,
    anaphor_attr,
    anaphor_led_en,
    anaphor_led_zh,
    coordinated_en,
    instructs_user_zh,
    noun_phrase_zh,
    subject_en,
    subject_slot,
    subject_zh,
    subjectless_zh,
)
from extract.chat.tokens import (
    _DIGIT,
    _content_tokens,
    _coord_imperative,
    _first_person,
    _has_content_zh,
    _has_subject,
    _implied_subject,
    _is_imperative,
    _key,
    _lets,
    _money,
    _tokens,
)
from extract.chat.wording import (
    _template_en,
    _template_zh,
    _wording_about_en,
    _wording_about_zh,
    _wording_en,
    _wording_zh,
)
from extract.corrections.conflicts import CUE_EN, CUE_ZH, is_weak
from extract.packs import current as current_pack
from extract.text import rx
from extract.text.lang import detect_lang
from extract.text.nlp import doc_text, entity_refs
from extract.text.timecues import resolve_relative_days, time_range
from extract.text.zh_words import cut_zh
from extract.types import (
    EntityRef,
    Extraction,
    FactDraft,
    Kind,
    Lang,
    MessageRecord,
    Rejection,
    author_name,
)

log = logging.getLogger(__name__)


# --- assembly -----------------------------------------------------------------------------


def _labels(
    text: str, kind: Kind, slot: str | None, ents: Sequence[EntityRef], correction: bool
) -> tuple[str, ...]:
    labels: list[str] = [kind]
    if slot:
        labels.append(slot.split(":", 1)[0])
    labels += current_pack().labels_in(text)  # extract/packs, "labels"
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
        if _condition(text, lang):
            kind = "constraint"  # "<P> has diabetes": a constraint to respect for them
        slot, value = subject_slot(about.subject, text, slot, value, lang)
        taste = kind == "preference"
        kind, polarity = _KIND_ABOUT.get(kind, kind), "neutral"
        dated = (
            time_range(text, msg.timestamp, future=True) if kind == "fact" and not slot else None
        )
        if dated is not None:  # a dated event of theirs ("<P> 下个月 12 号 V")
            kind = "plan" if dated[0] > msg.timestamp else "timeline"
        if kind == "plan" and dated is None and time_range(text, msg.timestamp) is None:
            kind = "preference"  # "<P> 一直想去 X": a wish of theirs, no event to come
        reason = _not_stored_about(
            about.subject, "preference" if taste else kind, slot, _reports_an_event(text, toks)
        )
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


def _condition(text: str, lang: Lang) -> bool:
    terms = current_pack().conditions.get(lang, ())
    low = text.lower()
    return any(t.lower() in low for t in terms)


def _household(subject: Subject) -> bool:
    """Someone the user lives with (the pack's `household`), or the user's pet: named as
    the user's own (a possessive names it), not someone else's."""
    if not subject.mine:
        return False
    if subject.kind == "pet":
        return True
    names = [subject.name, *(subject.aliases or ()), subject.relation or ""]
    words = {w.lower() for lang in ("zh", "en") for w in current_pack().household.get(lang, ())}
    return any(
        w and (w in n.lower().split() or (w in n and not w.isascii())) for n in names for w in words
    )


# a verb with 了/过 and what it did or got ("点了三份", "买过一台"): a reported event
_DONE_ZH = rx.compile(r"[\u4e00-\u9fff][了过][一二两三四五六七八九十几这那个份台本只件次趟]")


def _reports_an_event(text: str, toks: list[Token]) -> bool:
    """A clause telling something that happened (an anecdote: "点了三份", "has seen every
    season", "bought"), not how things stand."""
    if not toks:
        return bool(_DONE_ZH.search(text))
    return any(t.tag_ == "VBD" for t in toks)


def _not_stored_about(
    subject: Subject, kind: str, slot: str | None, event: bool = False
) -> str | None:
    """Why a statement about another person is not stored as their Fact, or None.

    What can shape an answer, a plan or a risk for the user is stored: an attribute of
    theirs (a slot: age, contact, job, place), a constraint (an allergy, a condition), an
    event to come, how someone the user lives with (or their pet) is and behaves.
    Their tastes, anecdotes and advice, and the habits of people outside the household,
    stay searchable evidence only: unconfirmed for the user, and their own matter (the
    reason names them, so recall can weigh the turn when a query does)."""
    if subject.kind not in ("person", "pet") or slot:
        return None
    if kind in ("constraint", "plan"):
        return None
    if kind in ("behavior_pattern", "fact") and _household(subject) and not event:
        return None
    return f"about someone else ({subject.name}): their taste, anecdote or advice, not stored"


# a Fact about someone else is never one of the user's own preferences or habits
_KIND_ABOUT: dict[str, Kind] = {
    "preference": "fact",
    "identity": "fact",
    "behavior_pattern": "fact",
}


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


_UNIT_ENTS = {"CARDINAL", "QUANTITY", "MONEY", "PERCENT", "ORDINAL"}
_NAME_ENTS = {"ORG", "GPE", "LOC", "FAC", "PRODUCT", "NORP", "EVENT", "LAW"}
_CONSTRAINT_EN = {"must", "only", "need", "needs", "required", "mandatory"}


def _has_content_en(toks: list[Token]) -> bool:
    """Content a user states about their own matter without saying "I": a number with
    its unit, a named thing, or a constraint (must, only, need, has to)."""
    for i, t in enumerate(toks):
        nxt = toks[i + 1].lower_ if i + 1 < len(toks) else ""
        if t.lower_ in _CONSTRAINT_EN or (t.lower_ in ("has", "have") and nxt == "to"):
            return True
        counted = i + 1 < len(toks) and toks[i + 1].pos_ == "NOUN"
        if t.like_num and t.ent_type_ in _UNIT_ENTS | {""} and (counted or _DIGIT.search(t.text)):
            return True
        if t.ent_type_ in _NAME_ENTS:
            return True
        # "…, no fabric softener": a trailing "no X" the user adds as an instruction
        trailing = i > 0 and toks[i - 1].is_punct
        if t.lower_ == "no" and t.dep_ == "det" and t.head.dep_ == "appos" and trailing:
            return True
    return False


def _not_about_user(
    text: str, toks: list[Token], kind: Kind, lang: Lang, multi_party: bool
) -> str | None:
    if lang == "zh" or _HAN.search(text):
        first = bool(_FIRST_PERSON_ZH.search(text))
        if not first and (_has_content_zh(text) or zh_grammar.implied_user(text)):
            return None  # the user's own turn: a statement of their matter
        if _SECOND_PERSON_ZH.match(text) and kind in ("fact", "preference", "timeline"):
            return "about the other party, not the user"
        if not first and not _PRED_START_ZH.match(text) and kind == "fact":
            return "no statement about the user"
        if (
            not first
            and kind in ("fact", "timeline", "plan")
            and not any(f[:1] == "v" for _w, f in cut_zh(text))
        ):
            return "small talk: no statement about the user (no verb, no first person)"
        return None
    first = (
        any(_first_person(t) for t in toks)
        or _implied_subject(toks) is not None
        or _lets(toks)
        or _has_content_en(toks)  # the user's own turn: a statement of their matter
        or cg.negative_constraint_en(toks)  # "no X", "nothing with X": what the user avoids
        or cg.coordinated_predicate_en(toks) is not None
    )
    first_subject = any(_first_person(t) and t.dep_ in ("nsubj", "nsubjpass") for t in toks)
    second = any(t.lower_ in ("you", "your", "yours", "u") for t in toks)
    if second and not first_subject and kind in ("fact", "preference", "timeline"):
        return "about the other party, not the user"
    if multi_party and (
        _is_imperative(toks) or _coord_imperative(toks) or cg.negative_constraint_en(toks)
    ):
        return "addressed to the other party, not about the speaker"
    if (
        not first
        and not _is_imperative(toks)
        and (_has_subject(_content_tokens(toks)) or kind in ("fact", "timeline"))
    ):
        return "no statement about the user"
    if not _concrete_en(toks):
        return "no concrete content"
    return None


def _extract_doc(msg: MessageRecord, doc: Doc, lang: Lang) -> Extraction:
    by_key: dict[str, FactDraft] = {}
    rejections: list[Rejection] = []
    corrected_sents: set[int] = set()
    marked: set[int] = set()  # sentences with a clause that is only a change marker
    carried: str | None = None
    owner: tuple[int, str | None] = (-1, None)  # (sentence, the user's thing it opened with)
    # (sentence, what the clause before was about: None for the user), the last entity named
    prev: tuple[int, Subject | None] = (-1, None)
    named_last: Subject | None = None
    for clause in _clauses(doc, lang):
        owned = None
        stripped = _strip(doc, clause.start, clause.end, lang)
        about = _about(doc, lang, stripped, prev[1] if prev[0] == clause.sent else None, named_last)
        prev = (clause.sent, about.subject if about else None)
        if about is not None:
            named_last = about.subject
        elif lang == "zh":  # "我要去的 X，它的 A 是 Z": the thing a bare phrase names
            named_last = noun_phrase_zh(stripped[2]) or named_last
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
) -> _About | None:
    """The entity of the user's world a clause is about: its own subject, the one its
    anaphor stands for, or the subject of the clause before when it has none of its own."""
    start, end, text, _ = stripped
    if not text:
        return None
    toks = [] if lang == "zh" else _tokens(doc, start, end)
    if lang == "zh":
        own = subject_zh(text)
        pron: str | None = anaphor_led_zh(text)
        bare = subjectless_zh(text)
    else:
        own = subject_en(toks)
        tok = anaphor_led_en(toks)
        pron = tok.text if tok is not None else None
        bare = coordinated_en(toks)
    if own is not None:
        return _About(own, "own")
    neuter = pron is not None and pron.lower().rstrip("的") in ("it", "its", "其", "它")
    if pron and named is not None and (neuter or named.kind in ("person", "pet")):
        return _About(replace(named, attr=anaphor_attr(text, toks, lang)), pron)
    if bare and before is not None:
        return _About(replace(before, attr=None), "carried")
    return None


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
    return joined(answer, _extract_doc(msg, doc, lang))


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
            said = _extract_doc(msgs[i], doc, "zh" if lang == "zh" else "en")
            results[i] = joined(answers[i], said)
    log.debug("extracted %d chat turns", len(msgs))
    return [r if r is not None else Extraction(facts=()) for r in results]


__all__ = ["SLOT_KIND", "extract_chat", "extract_chats"]
