"""Analysis of one clause (facts.py): leading markers stripped, greetings, the slot
and value it sets (a team's slot named by ``team_slug``), its kind and polarity.
"""

from __future__ import annotations

from spacy.tokens import Doc, Token

from extract.chat import clause_grammar as cg
from extract.chat import zh_grammar
from extract.chat.lexicon import (
    _ACTUALLY_EN,
    _ACTUALLY_ZH,
    _AGE_EN,
    _AGE_ZH,
    _AVOID_EN,
    _AVOID_LEMMAS,
    _AVOID_ZH,
    _BEHAV_EN,
    _BEHAV_ZH,
    _BUDGET_EN,
    _BUDGET_ZH,
    _CITY_ONLY_EN,
    _CITY_ONLY_ZH,
    _CORR_EN,
    _CORR_ZH,
    _DIET_EN,
    _DIET_ZH,
    _FROM_EN,
    _FROM_ZH,
    _FUTURE_CUE,
    _GREET_EN,
    _GREET_HEAD,
    _GREET_REST_EN,
    _GREET_REST_ZH,
    _GREET_TAIL,
    _GREET_ZH,
    _HAN,
    _HOME_EN,
    _HOME_ZH,
    _IDENTITY_EN,
    _IDENTITY_ZH,
    _JOB_EN,
    _JOB_ZH,
    _LEAD_EN,
    _LEAD_ZH,
    _LIKE_EN,
    _LIKE_LEMMAS,
    _LIKE_ZH,
    _LIVE_IN_ZH,
    _NAME_EN,
    _NAME_ZH,
    _NEG_EN,
    _NEG_WORDS_EN,
    _NON_WORD,
    _PARTICLES,
    _PAST_EN,
    _PAST_ZH,
    _PLAN_EN,
    _PLAN_ZH,
    _STRONG_CON_EN,
    _STRONG_CON_ZH,
    _TEAM_CITY_EN,
    _TEAM_CITY_ZH,
    _TRAIL,
    _WEAK_CON_EN,
    _WEAK_CON_ZH,
    _WEAR_EN,
    _WEAR_ZH,
)
from extract.chat.slots import make_that_en, slot_en, slot_zh
from extract.chat.tokens import (
    _MAX_LEADS,
    _content_tokens,
    _coord_imperative,
    _first_person,
    _is_imperative,
    _money,
    _tokens,
)
from extract.nlp import doc_text, ents_in, gazetteer_lookup
from extract.types import Kind, Lang, Polarity
from packs import PackPattern, current
from text import rx
from text.lang import fmt_number, fold, parse_number

# --- clause analysis ----------------------------------------------------------------------


def _strip(doc: Doc, start: int, end: int, lang: Lang) -> tuple[int, int, str, bool]:
    """Drop leading conjunctions, fillers and correction markers, and trailing punctuation.

    Returns the new offsets, the text and whether a correction marker was seen.
    """
    lead, corr, actually = (
        (_LEAD_ZH, _CORR_ZH, _ACTUALLY_ZH) if lang == "zh" else (_LEAD_EN, _CORR_EN, _ACTUALLY_EN)
    )
    text = doc_text(doc)[start:end]
    correction, soft = False, False
    for _ in range(_MAX_LEADS):
        stripped = text.lstrip()
        m = corr.match(stripped)
        if m:
            correction = True
        else:
            m = actually.match(stripped)
            soft = soft or bool(m)
            m = m or lead.match(stripped)
        if not m or not m.group(0) or (lang == "zh" and zh_grammar.demonstrative(stripped)):
            break
        start += len(text) - len(stripped) + m.end()
        text = doc_text(doc)[start:end]
    start += len(text) - len(text.lstrip())
    text = doc_text(doc)[start:end]
    m = _TRAIL.search(text)
    if m:
        end -= len(text) - (m.start("p") if m.has("p") else m.start())
    text = doc_text(doc)[start:end]
    if soft and not correction:
        correction = _slot(doc, start, end, lang)[0] is not None  # "actually" + a slot value
    return start, end, text, correction


def _greeting(text: str, lang: Lang) -> str | None:
    clean = _GREET_TAIL.sub("", text.strip())
    clean = _GREET_HEAD.sub("", clean)
    for reason, pattern in _GREET_ZH if lang == "zh" else _GREET_EN:
        m = pattern.match(clean)
        if not m:
            continue
        rest = clean[m.end() :].strip(" ,，!！.。")
        if lang == "zh" and len(rest) <= 4 and not _GREET_REST_ZH.search(rest):
            return reason
        if lang == "en" and len(rest.split()) <= 3 and not _GREET_REST_EN.search(rest):
            return reason
    return None


def _city(doc: Doc, start: int, end: int, raw: str) -> str:
    for ent in ents_in(doc, start, end):
        if ent.label_ == "GPE":
            return ent.id_ or ent.text
    hit = gazetteer_lookup(raw)
    return hit[1] if hit else _PARTICLES.sub("", raw.strip())


def _city_at(doc: Doc, start: int, m: rx.Match) -> str:
    """The city of a match's ``city`` group, the match taken in the clause from ``start``."""
    return _city(doc, start + m.start("city"), start + m.end("city"), m.group("city"))


_TEAM_ARTICLE = rx.compile(r"^(?:the|our|my)\s+")
_TEAM_SUFFIX = rx.compile(r"(?:团队|组|部门|\s*team)$")


def team_slug(team: str) -> str:
    """ "设计团队" / "the design team" -> "设计_team" / "design_team"; region words map through the
    packs' team_regions, so one region named in two languages gives one slot."""
    key = _TEAM_ARTICLE.sub("", fold(team.strip()))
    key = _TEAM_SUFFIX.sub("", key).strip()
    slug = current().folded_regions.get(key) or _NON_WORD.sub("_", key).strip("_")
    return f"{slug}_team"


def _slot(doc: Doc, start: int, end: int, lang: Lang) -> tuple[str | None, str | None]:
    """(slot, value) when the clause sets something a later message can overwrite."""
    text = doc_text(doc)[start:end]
    zh = lang == "zh"
    for pattern in (_TEAM_CITY_ZH,) if zh else _TEAM_CITY_EN:
        m = pattern.search(text)
        if m:
            return f"default_city:{team_slug(m.group('team'))}", _city_at(doc, start, m)
    m = (_CITY_ONLY_ZH if zh else _CITY_ONLY_EN).search(text)
    if m:
        return "default_city", _city_at(doc, start, m)
    money = _money(doc, start, end)
    if money and (
        (_BUDGET_ZH if zh else _BUDGET_EN).search(text)
        or money[0].startswith(("<=", "~"))
        or "-" in money[0]
    ):
        return "budget", money[0]
    for ent in ents_in(doc, start, end):
        if ent.label_ == "SIZE":
            return "size", ent.id_ or ent.text
    m = (_WEAR_ZH if zh else _WEAR_EN).search(text)
    if m:
        return "size", m.group("v").upper()
    found = _slot_zh(doc, start, text) if zh else _slot_en(doc, start, text)
    if found[0] is not None:
        return found
    if zh or _HAN.search(text):  # code-switched clauses parse better by the Chinese rules
        general = slot_zh(text)
        route = None if general else zh_grammar.route_slot(text)
        if route:
            return route
    else:
        toks = _content_tokens(_tokens(doc, start, end))
        general = slot_en(toks) or make_that_en(toks)
    return (general.key, general.value) if general else (None, None)


def _group(m: rx.Match) -> str:
    return next((g for g in m.groups() if g), "").strip()


def _slot_en(doc: Doc, start: int, text: str) -> tuple[str | None, str | None]:
    for slot, pattern in (("home_city", _HOME_EN), ("hometown", _FROM_EN)):
        m = pattern.search(text)
        if m:
            return slot, _city_at(doc, start, m)
    m = _NAME_EN.search(text)
    if m:
        return "name", m.group("v")
    m = _DIET_EN.search(text)
    if m:
        return "diet", (m.group("v") or f"no {m.group('v2')}").lower()
    m = _AGE_EN.search(text)
    if m:
        return "age", _group(m)
    m = _JOB_EN.search(text)
    if m:
        return "job", _group(m).lower()
    return None, None


def _slot_zh(doc: Doc, start: int, text: str) -> tuple[str | None, str | None]:
    m = _HOME_ZH.search(text)
    if m:
        return "home_city", _city_at(doc, start, m)
    m = _LIVE_IN_ZH.search(text)
    if m and gazetteer_lookup(m.group("city")):
        slot = "work_city" if m.group("verb") in ("工作", "上班") else "home_city"
        return slot, _city_at(doc, start, m)
    m = _FROM_ZH.search(text)
    if m and gazetteer_lookup(m.group("city")):
        return "hometown", _city_at(doc, start, m)
    m = _NAME_ZH.search(text)
    if m:
        return "name", m.group("v")
    m = _DIET_ZH.search(text)
    if m:
        return "diet", f"不吃{m.group('v2')}" if m.group("v2") else "vegetarian"
    m = _AGE_ZH.search(text)
    if m:
        age = parse_number(m.group("v"))
        return "age", fmt_number(age) if age is not None else m.group("v")
    m = _JOB_ZH.search(text)
    if m:
        return "job", _group(m)
    return None, None


# (pattern, kind, polarity), the first that matches wins
_KindCues = tuple[tuple[rx.Pattern | PackPattern, Kind, Polarity], ...]
_KINDS_ZH: _KindCues = (
    (_IDENTITY_ZH, "identity", "neutral"),
    (_AVOID_ZH, "preference", "avoids"),
    (_STRONG_CON_ZH, "constraint", "avoids"),
    (_PLAN_ZH, "plan", "neutral"),
    (_LIKE_ZH, "preference", "likes"),
    (_BEHAV_ZH, "behavior_pattern", "neutral"),
    (_WEAK_CON_ZH, "constraint", "neutral"),
    (_FUTURE_CUE, "plan", "neutral"),
    (_PAST_ZH, "timeline", "neutral"),
)
# the English cues checked after a liking, before a past tense
_LATE_KINDS_EN: _KindCues = (
    (_BEHAV_EN, "behavior_pattern", "neutral"),
    (_WEAK_CON_EN, "constraint", "neutral"),
    (_FUTURE_CUE, "plan", "neutral"),
)


def _first_kind(text: str, table: _KindCues) -> tuple[Kind, Polarity] | None:
    return next(((kind, pol) for pattern, kind, pol in table if pattern.search(text)), None)


def _kind_zh(text: str) -> tuple[Kind, Polarity]:
    return _first_kind(text, _KINDS_ZH) or ("fact", "neutral")


def _negated(tok: Token) -> bool:
    return any(c.dep_ == "neg" or c.lower_ == "never" for c in tok.children)


def _kind_en(text: str, toks: list[Token]) -> tuple[Kind, Polarity]:
    verbs = [t for t in toks if t.pos_ == "VERB"]
    if _IDENTITY_EN.search(text):
        return "identity", "neutral"
    if cg.negative_constraint_en(toks):
        return "constraint", "avoids"
    if (
        _AVOID_EN.search(text)
        or any(t.lemma_ in _AVOID_LEMMAS and not _negated(t) for t in verbs)
        or any(t.lemma_ in _LIKE_LEMMAS and _negated(t) for t in verbs)
    ):
        return "preference", "avoids"
    if _STRONG_CON_EN.search(text) or _is_imperative(toks) or _coord_imperative(toks):
        neg = bool(_NEG_WORDS_EN.search(text))
        return "constraint", "avoids" if neg else "neutral"
    if _PLAN_EN.search(text):
        return "plan", "neutral"
    if _LIKE_EN.search(text) or any(t.lemma_ in _LIKE_LEMMAS for t in verbs):
        return "preference", "avoids" if _NEG_EN.search(text) else "likes"
    late = _first_kind(text, _LATE_KINDS_EN)
    if late:
        return late
    root = next((t for t in toks if t.dep_ == "ROOT"), None)
    if _PAST_EN.search(text) or (
        root is not None and root.tag_ == "VBD" and any(_first_person(c) for c in root.children)
    ):
        return "timeline", "neutral"
    return "fact", "neutral"


_LIGHT_LEMMAS = {
    "be",
    "have",
    "do",
    "love",
    "like",
    "think",
    "know",
    "feel",
    "guess",
    "mean",
    "want",
    "get",
    "go",
    "say",
    "see",
    "hope",
    "bet",
    "agree",
    "wish",
    "sound",
}


def _concrete_en(toks: list[Token]) -> bool:
    return any(
        t.pos_ in ("NOUN", "PROPN", "NUM", "ADJ")
        or (t.pos_ == "VERB" and t.lemma_ not in _LIGHT_LEMMAS)
        for t in toks
    )
