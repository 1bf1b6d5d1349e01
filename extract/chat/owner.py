"""Whose fact a clause states (facts.py): the user's own, stated as true, or another
person's, a hypothesis, a question; whether it speaks of the user at all, and what is
stored of a statement about someone else.
"""

from __future__ import annotations

from dataclasses import replace

from spacy.tokens import Token

from extract.chat import clause_grammar as cg
from extract.chat import zh_grammar
from extract.chat.clause import _concrete_en
from extract.chat.lexicon import (
    _AVOID_LEMMAS,
    _FIRST_PERSON_ZH,
    _HAN,
    _I_ZH,
    _LIKE_LEMMAS,
    _PRED_START_ZH,
    _SECOND_PERSON_ZH,
    _WE_ZH,
    USER_ZH,
    _rx,
)
from extract.chat.slots import slot_zh
from extract.chat.subject import Subject, named_by
from extract.chat.subject_zh import instructs_user_zh, subject_zh
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
)
from extract.types import FactDraft, Kind, Lang
from packs import current as current_pack
from text import rx
from text.zh_words import cut_zh

# --- whose fact: the user's own, stated as true ----------------------------------------------

_CHANGE_EN = _rx(
    r"\b(?:now|instead|no longer|switched|moved|changed|from now on|make that|change it to|"
    r"anymore|new)\b"
)
_CHANGE_ZH = rx.compile(r"改成|换成|改为|改到|换到|变成|不再|现在|搬到|以后|今后|从现在起|新的")
_CHANGE_ADV_ZH = rx.compile(r"从今以后|从现在起|以后|今后")
_THIRD_PRON_EN = {"he", "she", "they", "him", "her", "them"}
_MODALS_EN = {"would", "'d", "might", "could"}
# verbs whose subject is a person: feeling, wanting, saying
_PERSON_VERBS_EN = _LIKE_LEMMAS | _AVOID_LEMMAS | {
    "want", "think", "say", "tell", "keep", "suggest", "recommend", "feel", "believe",
    "wish", "hope", "need", "ask", "insist",
}  # fmt: skip
_HYPO_ZH = rx.compile(r"^(?:要是|假如|万一|假设|倘若|若是|如果.*的话)|的话[，,\s]")
_PERSON_VERBS_ZH = rx.compile(
    r"^(?:也|都|一直|总是|很|最|特别|比较|还|就|不太|不)*(?:喜欢|爱|讨厌|觉得|认为|说|建议|推荐|"
    r"偏好|希望|想|要|让|叫|嫌)"
)
_THIRD_PRON_ZH = ("他", "她", "他们", "她们")
# "我希望<someone> …": a wish, whoever it is about
_WISH_ZH = rx.compile(
    r"^(?:我|我们)(?:真|很|一直|特别|也|都)*(?:希望|盼着|盼望|但愿|祝|祝愿|期待)(.+)$"
)


# what stops a Chinese subject noun phrase: its verb, an adverb, a preposition, a number
_NP_STOP_ZH = ("v", "d", "p", "t", "m", "c", "a", "u")


def _people(lang: Lang) -> set[str]:
    return {w.lower() for w in current_pack().people.get(lang, ())}


def _other_person(text: str, toks: list[Token], lang: Lang) -> str | None:
    """A statement whose subject is another person the pack names ("my <person> is on X",
    "楼上<person>家的<person>在学 X"): that person's fact, not the user's. A constraint the
    user states for them ("<person>对 X 过敏") stays the user's to respect; a subject joined
    with the user ("my <person> and I", "我和<person>") is the user's."""
    if lang == "zh" or _HAN.search(text):
        people = _people("zh")
        head, np = "", list[str]()
        for w, f in cut_zh(text):
            if not w.strip() or f == "x":
                continue
            if w in ("的", "家") or f in ("q", "uj"):
                continue
            if (f[:1] in ("n", "r", "j", "s") or (f[:1] == "i" and not np)) and not (
                f[:1] == "r" and np and w not in ("我", "我们")
            ):
                np.append(w)
                head = w
                continue
            break
        if not np or np == ["我"] or np == ["我们"]:
            return None
        person = head in people or (
            head not in ("我", "我们") and any(p in head for p in people if len(p) >= 2)
        )
        owner = [w for w in np if w in people or any(p in w for p in people if len(p) >= 2)]
        if person or (owner and cut_zh(head)[0][1] == "nr"):
            return f"about someone else ({''.join(np)}), not the user"
        return None
    people = _people("en")
    ids = {t.i for t in toks}
    for verb in (t for t in toks if t.head.i not in ids or t.dep_ == "ROOT"):
        subj = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if subj is None or subj.lemma_.lower() not in people:
            return None
        if any(c.dep_ == "conj" and _first_person(c) for c in subj.subtree):
            return None  # "my wife and I"
        return f"about someone else ({subj.text}), not the user"
    return None


def _not_the_users(
    text: str, toks: list[Token], lang: Lang, slot: bool, about: bool = False
) -> str | None:
    """Why a clause is not a fact stated as true: hypothetical, a wish, or someone else's
    (``about``: the clause has a subject of the user's world, whose Fact it is)."""
    if lang == "zh" or _HAN.search(text):
        return _not_the_users_zh(text, slot, about)
    for t in toks:
        if t.dep_ == "mark" and t.lower_ == "if":
            cond = t.head
            main = cond.head if cond.dep_ == "advcl" else cond
            if (
                any(c.lower_ == "ever" for c in cond.children)
                or cond.lower_ == "were"
                or any(c.lower_ in _MODALS_EN for c in main.children if c.dep_ == "aux")
                or cg.possibility_en(main)
            ):
                return "hypothetical (conditional), not a fact about the user"
    ids = {t.i for t in toks}
    mains = [t for t in toks if t.head.i not in ids or t.dep_ == "ROOT"]
    for verb in mains:
        subj = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if subj is None:
            continue
        if _first_person(subj):
            wish = verb.lemma_ in ("hope", "wish")
            comp = next((c for c in verb.children if c.dep_ == "ccomp"), None)
            inner = next((c for c in comp.children if c.dep_ == "nsubj"), None) if comp else None
            if wish and inner is not None and not _first_person(inner):
                return "a wish about someone else, not a fact about the user"
            return None
        if about or any(c.dep_ == "conj" and _first_person(c) for c in subj.subtree):
            return None  # someone else's Fact, or the user with someone ("my <P> and I")
        person = (
            subj.lower_ in _THIRD_PRON_EN
            or subj.ent_type_ == "PERSON"
            or any(c.dep_ == "appos" and c.pos_ == "PROPN" for c in subj.children)
        )
        owned_agent = (
            not slot
            and subj.pos_ == "NOUN"
            and any(c.dep_ == "poss" for c in subj.children)
            and (
                verb.lemma_ in _PERSON_VERBS_EN
                or any(t.lower_ in _THIRD_PRON_EN | {"his", "their"} for t in toks)
            )
        )
        if person or owned_agent:
            return f"about someone else ({subj.text}), not the user"
        return None
    return None


def _not_the_users_zh(text: str, slot: bool, about: bool = False) -> str | None:
    if _HYPO_ZH.search(text) or zh_grammar.speculative(text) or cg.hypothetical_zh(text):
        return "hypothetical (conditional), not a fact about the user"
    wish = _WISH_ZH.match(text)
    if wish and subject_zh(wish.group(1)) is not None:
        return "a wish about someone else, not a fact about the user"
    if about or instructs_user_zh(text):
        return None  # someone else's Fact, or what a person tells the user to do
    words = [(w, f) for w, f in cut_zh(text) if w.strip()]
    if words and words[0][0] in _THIRD_PRON_ZH:
        return f"about someone else ({words[0][0]}), not the user"
    if slot or len(words) < 3 or words[0][0] not in ("我", "我们"):
        return None
    i = 1 + (words[1][0] == "的")
    nouns = []
    while i < len(words) and words[i][1][:1] in ("n", "r") and words[i][0] not in ("我", "自己"):
        nouns.append(words[i][0])
        i += 1
        if i < len(words) and words[i][0] == "的":
            i += 1
    if not nouns:
        return None
    rest = "".join(w for w, _f in words[i:])
    if _PERSON_VERBS_ZH.match(rest) or any(w in _THIRD_PRON_ZH for w, _f in words[i:]):
        return f"about someone else ({''.join(nouns)}), not the user"
    return None


# "X改了，换成Y": the attribute named in a clause of its own, the value in the next one
_CHANGED_ZH = rx.compile(
    r"^(?P<attr>[^，,。；;！!？?\s]{2,12}?)(?:也|都|又|已经)?(?:改了|变了|换了|调整了|有变(?:化)?|变动了)$"
)
_OPENS_WITH_CHANGE_ZH = rx.compile(
    r"^(?:也|都|又|已经|就)?(?:换成|改成|改为|改到|换到|调成|调到|改在|挪到)"
)


def _carry(draft: FactDraft, attr: str, text: str) -> FactDraft:
    """A change clause without its attribute, given the one the previous clause named."""
    found = slot_zh(attr + text)
    slot = draft.slot or (found.key if found else None)
    content = attr + draft.content
    return replace(
        draft,
        content=content,
        slot=slot,
        value=draft.value or (found.value if found else None),
        key=_key(draft.kind, slot, content),
    )


def _owned(content: str, owner: str) -> str:
    """A further statement given the owner its sentence opened with: "W 在 V" after "我们 X 的
    A 是 Z" -> "我们 X 的 W 在 V" (worded like the fact itself)."""
    who = _I_ZH.sub(USER_ZH, _WE_ZH.sub(f"{USER_ZH}等人", owner))
    left = " " if who[-1:].isascii() and who[-1:].isalnum() else ""
    right = " " if content[:1].isascii() and content[:1].isalnum() else ""
    return f"{who}{left}的{right}{content}"


# --- someone else's fact: what is stored of it -----------------------------------------------


def _condition(text: str) -> bool:
    """A health condition named in any of the pack's languages (a Chinese turn may name it
    in English: "我<P>有 <condition in English>")."""
    low = text.lower()
    return any(t.lower() in low for terms in current_pack().conditions.values() for t in terms)


def _household(subject: Subject) -> bool:
    """Someone the user lives with (the pack's `household`), or the user's pet: named as
    the user's own (a possessive names it), not someone else's."""
    if not subject.mine:
        return False
    if subject.kind == "pet":
        return True
    return named_by(subject.names(), "household")


def _works_for_user(subject: Subject) -> bool:
    """The user's own <job> (a person named by an occupation of the pack, someone who
    works for the user): their routine is when and where the user sees them."""
    return subject.mine and subject.kind == "person" and named_by(subject.names(), "jobs")


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
    event to come, how someone the user lives with (or their pet) is and behaves, the
    routine of someone who works for the user (a teacher's lesson day is the user's too).
    Their tastes, anecdotes and advice, and the habits of other people outside the
    household, stay searchable evidence only: unconfirmed for the user, and their own matter (the
    reason names them, so recall can weigh the turn when a query does)."""
    if subject.kind not in ("person", "pet") or slot:
        return None
    if kind in ("constraint", "plan"):
        return None
    if kind in ("behavior_pattern", "fact") and _household(subject) and not event:
        return None
    if kind == "behavior_pattern" and _works_for_user(subject) and not event:
        return None
    return f"about someone else ({subject.name}): their taste, anecdote or advice, not stored"


# a Fact about someone else is never one of the user's own preferences or habits
_KIND_ABOUT: dict[str, Kind] = {
    "preference": "fact",
    "identity": "fact",
    "behavior_pattern": "fact",
}


# --- whether a clause speaks of the user at all ---------------------------------------------

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
