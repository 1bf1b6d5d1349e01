"""A short user turn that answers the assistant's question just before it.

The answer takes its attribute from the question, by structure only:

- a wh-question ("您希望A离B多远？", "What time should I set it for?") and a
  fragment answer ("半小时以内吧", "7pm"): the question's frame with the wh-phrase filled
  by the answer's value, the addressee turned into the user, hedges and particles dropped;
- a yes/no question ("Should I reserve a quiet table for your team lunches?") and a yes-like
  answer ("Yes, always."): the question's proposition as the user's statement, with the
  answer's adverbs; a no-like answer ("not really", "不用了") stores nothing of it;
- options the assistant listed ("1. X 2. Y", "X还是Y", "X or Y") and the user's pick
  ("the second one", "就第二个吧", or the option named): the option chosen, by its name.

The Fact cites both turns: the user's turn (the statement) and the assistant's (context).
A turn that is not an answer (a statement of its own, or no question before it) is left
to the clause analysis of ``facts``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from spacy.language import Language
from spacy.tokens import Doc

from extract.chat.answer_en import _adverbs_en, _offer_en, _wh_en, _yes_no_en
from extract.chat.answer_words import (
    _HEDGE_EN,
    _HEDGE_TAIL_EN,
    _HEDGE_TAIL_ZH,
    _HEDGE_ZH,
    _NO_EN,
    _NO_ZH,
    _NOT_YES_ZH,
    _OFFER_ZH,
    _PUNCT,
    _SELF_EN,
    _TAG_EN,
    _THANKS,
    _WH_TAGS,
    _WH_ZH,
    _YES_EN,
    _YES_NO_Q_ZH,
    _YES_ZH,
    MAX_ANSWER_EN,
    MAX_ANSWER_ZH,
    USER_ZH,
)
from extract.chat.answer_zh import _adverbs_zh, _frame_zh, _wh_zh, _yes_no_zh
from extract.chat.clause import _kind_en, _kind_zh
from extract.chat.question import (
    _alternatives_en,
    _alternatives_zh,
    _picked,
    _question,
    choice_topic_zh,
    listed_options,
)
from extract.chat.tokens import _key
from extract.nlp import entity_refs
from extract.types import Extraction, FactDraft, Kind, Lang, MessageRecord, Rejection
from packs import current as current_pack
from text import rx
from text.lang import detect_lang
from text.timecues import resolve_relative_days, time_range


@dataclass(frozen=True)
class Answer:
    """What a turn says as an answer: its Extraction, and whether that is all of it
    (``whole``) or the turn says more the clause analysis should read too."""

    extraction: Extraction
    whole: bool = True


# --- the answer ---------------------------------------------------------------------------


def _clean_value(text: str, zh: bool) -> str:
    """The answer's value: without hedges, particles and punctuation around it."""
    out = _PUNCT.sub("", text.strip())
    for _ in range(2):
        if zh:
            out = _PUNCT.sub("", _HEDGE_TAIL_ZH.sub("", _HEDGE_ZH.sub("", out)))
        else:
            out = _PUNCT.sub("", _HEDGE_TAIL_EN.sub("", _HEDGE_EN.sub("", out)))
    return out


def _short(text: str, zh: bool) -> bool:
    return len(text) <= MAX_ANSWER_ZH if zh else len(text.split()) <= MAX_ANSWER_EN


def _fragment_en(doc: Doc) -> bool:
    """No clause of its own: no subject anywhere and no imperative ("within a ten-minute
    walk", "7pm"; not "book a table for two")."""
    if any(t.dep_ in ("nsubj", "nsubjpass", "expl") for t in doc):
        return False
    finite = ("VB", "VBD", "VBZ", "VBP")  # "book a table", "loved it": a clause of its own
    return not any(t.dep_ == "ROOT" and t.pos_ == "VERB" and t.tag_ in finite for t in doc)


def _fragment_zh(text: str) -> bool:
    """No first person: a value, not a statement of the user's own ("我住在…")."""
    return "我" not in text


def _draft(
    msg: MessageRecord, content: str, lang: Lang, nlp: Language, kind: Kind | None = None
) -> FactDraft:
    doc = nlp(content)
    if kind is None:
        kind = _kind_zh(content)[0] if lang == "zh" else _kind_en(content, list(doc))[0]
    content = resolve_relative_days(content, msg.timestamp, lang == "zh")
    span = time_range(content, msg.timestamp, future=kind == "plan")
    start, end = span if span else (msg.timestamp, msg.timestamp)
    sources = (msg.message_id, msg.asked_id) if msg.asked_id else (msg.message_id,)
    labels = tuple(dict.fromkeys([kind, "answer", *current_pack().labels_in(content)]))
    return FactDraft(
        content=content,
        kind=kind,
        source_message_ids=sources,
        time_start=start,
        time_end=end,
        lang=lang,
        entities=entity_refs(doc, 0, len(content)),
        labels=labels,
        key=_key(kind, None, content),
    )


def _rejection(msg: MessageRecord, reason: str) -> Answer:
    r = Rejection(source_message_ids=(msg.message_id,), reason=reason, text=msg.content.strip())
    return Answer(Extraction(facts=(), rejections=(r,)))


def _fact(
    msg: MessageRecord,
    content: str | None,
    lang: Lang,
    nlp: Language,
    kind: Kind | None = None,
    whole: bool = True,
) -> Answer | None:
    if not content:
        return None
    return Answer(Extraction(facts=(_draft(msg, content, lang, nlp, kind),)), whole=whole)


_FIRST_CLAUSE = rx.compile(r"[^，,。；;！!？?]+")


def _pick_only(
    msg: MessageRecord, text: str, zh: bool, lang: Lang, en_nlp: Language, zh_nlp: Language
) -> Answer | None:
    """A pick among options the assistant listed as a statement ("Here are three: 1) …")."""
    options = listed_options(msg.asked or "")
    head = _FIRST_CLAUSE.match(text)  # "就第二个吧，那天正好有空": the pick leads
    text = head.group(0) if head else text
    if not options or not _short(text, zh):
        return None
    chosen = _picked(text, options, zh, None if zh else en_nlp(text))
    if not chosen:
        return None
    content = f"{USER_ZH}选择了{chosen}" if zh else f"The user chose {chosen}"
    return _fact(msg, content, lang, zh_nlp if zh else en_nlp, kind="preference")


def answered(msg: MessageRecord, en_nlp: Language, zh_nlp: Language) -> Answer | None:
    """The turn as an answer to the assistant's question before it; None when it is not
    one (no question before it, or a statement of its own)."""
    if not msg.asked or msg.role != "user":
        return None
    question = _question(msg.asked)
    text = msg.content.strip()
    if not text:
        return None
    lang: Lang = "zh" if detect_lang(text, default=msg.lang) == "zh" else "en"
    zh = lang == "zh"
    if question is None:  # options listed without a question: only a pick binds to them
        return _pick_only(msg, text, zh, lang, en_nlp, zh_nlp)
    q_zh = detect_lang(question, default=lang) == "zh"
    if not _short(text, zh):
        return None
    nlp = zh_nlp if zh else en_nlp
    q_nlp = zh_nlp if q_zh else en_nlp
    adoc = None if zh else en_nlp(text)
    # English: parsed without a confirmation tag ("…, right?")
    qdoc = None if q_zh else en_nlp(_TAG_EN.sub("", _PUNCT.sub("", question)) + "?")
    options = listed_options(msg.asked) or (
        _alternatives_zh(question) if q_zh else _alternatives_en(qdoc) if qdoc else ()
    )
    if options:
        chosen = _picked(text, options, zh, adoc)
        if chosen:
            topic = choice_topic_zh(question, options) if zh and q_zh else ""
            if topic and topic in chosen:
                topic = ""
            content = f"{topic}{USER_ZH}选择了{chosen}" if zh else f"The user chose {chosen}"
            return _fact(msg, content, lang, nlp, kind="preference")
    if _OFFER_ZH.search(question) if q_zh else qdoc is not None and _offer_en(qdoc):
        return _declined(msg, text, zh)  # "Anything else I can help with?" + "no"
    # a yes/no question ("要不要…几瓶…？", "…吗？") asks no wh: its 几/什么 are indefinite
    wh = (
        bool(_WH_ZH.search(_frame_zh(question))) and not _YES_NO_Q_ZH.search(question)
        if q_zh
        else _has_wh(qdoc)
    )
    if wh:
        value = _clean_value(text, zh)
        if not value or not (_fragment_zh(value) if zh else _fragment_en(en_nlp(value))):
            return None
        if q_zh != zh:
            return None  # the frame and the value in two languages: left as said
        bound = _wh_zh(question, value) if zh else _wh_en(qdoc, value) if qdoc else None
        return _fact(msg, bound, lang, q_nlp)
    return _yes_no(msg, text, question, lang, q_zh, nlp, adoc, qdoc)


def _declined(msg: MessageRecord, text: str, zh: bool) -> Answer | None:
    """A plain no to an offer: nothing stored; with more said, the clause analysis reads it."""
    plain = zh and _NOT_YES_ZH.match(text) is not None
    no = None if plain else (_NO_ZH if zh else _NO_EN).match(text)
    if no is None or len(_clean_value(_THANKS.sub("", text[no.end() :]), zh)) > (2 if zh else 3):
        return None
    return _rejection(msg, "declines the assistant's offer: nothing stored")


def _has_wh(doc: Doc | None) -> bool:
    return doc is not None and any(t.tag_ in _WH_TAGS for t in doc)


def _yes_no(
    msg: MessageRecord,
    text: str,
    question: str,
    lang: Lang,
    q_zh: bool,
    nlp: Language,
    adoc: Doc | None,
    qdoc: Doc | None,
) -> Answer | None:
    zh = lang == "zh"
    plain = zh and _NOT_YES_ZH.match(text) is not None  # "不错", "要不…": neither
    no = None if plain else (_NO_ZH if zh else _NO_EN).match(text)
    if no is not None:
        rest = _clean_value(text[no.end() :], zh)
        if rest and len(rest) > (2 if zh else 3):
            return Answer(Extraction(facts=()), whole=False)  # "no, I prefer X": X is read
        return _rejection(msg, "declines the assistant's question: nothing of it stored")
    yes = None if plain else (_YES_ZH if zh else _YES_EN).match(text)
    if yes is None or q_zh != zh:
        return None
    rest = _clean_value(text[yes.end() :], zh)
    if zh:
        adverb = _adverbs_zh(rest)
        content = _yes_no_zh(question, adverb)
    else:
        adverb = _adverbs_en(adoc) if adoc is not None else ""
        content = _yes_no_en(qdoc, adverb) if qdoc is not None else None
    said_more = bool(rest) and len(rest) > len(adverb) + (2 if zh else 12)
    # yes to what the assistant offers to do ("Should I …?"): what the user wants done
    offered = qdoc is not None and any(
        t.dep_ == "nsubj" and t.lower_ in _SELF_EN and t.head.dep_ == "ROOT" for t in qdoc
    )
    kind: Kind | None = "preference" if offered else None
    return _fact(msg, content, lang, nlp, kind=kind, whole=not said_more)


def joined(answer: Answer | None, said: Extraction) -> Extraction:
    """The answer's Facts beside what the clause analysis found in the rest of the turn
    (its rejections of the bare answer words dropped when the answer gave a Fact)."""
    if answer is None:
        return said
    facts = (*answer.extraction.facts, *said.facts)
    rejections = said.rejections if not answer.extraction.facts else ()
    return replace(said, facts=facts, rejections=(*answer.extraction.rejections, *rejections))


__all__ = ["Answer", "answered", "joined"]
