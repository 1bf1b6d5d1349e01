"""Build a Topic's Summaries from its active Facts (pure; graph/ writes the drafts).

Facts are grouped with networkx (shared entity, slot family, session, or closeness in
time); each group becomes one SummaryDraft whose content is composed from the facts' own
wording by a few general rules. The same facts always give equal drafts, whatever their
order, so re-consolidating unchanged facts is a no-op for graph/.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from functools import partial
from typing import Any

import networkx as nx

from extract import rx
from extract.decay import decay_factor_for
from extract.packs import current as current_pack
from extract.taxonomy import normalize_name
from extract.types import EntityRef, FactRecord, Lang, SummaryDraft

GROUP_WINDOW = timedelta(hours=6)
MAX_CONTENT_CHARS = 600
MAX_GROUP_FACTS = 16  # a bigger group is split by session, then into runs in time order

# Entity types that carry a value, not an identity: sharing "800" links nothing.
_UNLINKED_TYPES = frozenset(
    {"MONEY", "SIZE", "DATE", "TIME", "CARDINAL", "ORDINAL", "PERCENT", "QUANTITY"}
)
_LASTING_KINDS = frozenset({"preference", "constraint", "behavior_pattern", "identity"})
_DATED_KINDS = frozenset({"timeline", "plan", "fact"})

_EN_USER = rx.compile(r"^(?:the\s+)?user\s+", rx.IGNORECASE)
_EN_NAME = rx.compile(r"^([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)(?P<gap>\s+)[a-z]")  # gap: before the rest
# fmt: off
_EN_NOT_NAMES = frozenset((
    "the", "a", "an", "this", "that", "these", "those", "in", "on", "at", "after", "before",
    "when", "while", "last", "next", "today", "yesterday", "tomorrow", "every", "each", "some",
    "most", "many", "she", "he", "they", "it", "we", "i", "you", "there", "here", "if",
    "since", "during",
))
# fmt: on
_ZH_USER = rx.compile(r"^(?:该用户|用户|我)")
_TRAIL = " 。.!！；;，,"

_EN_INTENT = rx.compile(
    r"^(?:is\s+|are\s+)?(?:currently\s+|now\s+|still\s+)?"
    r"(?:looking\s+for|looking\s+to\s+buy|shopping\s+for|searching\s+for|wants\s+to\s+buy|"
    r"plans\s+to\s+buy|intends\s+to\s+buy|would\s+like\s+to\s+buy|wants\s+to\s+get|"
    r"is\s+in\s+the\s+market\s+for)\s+(.+)$",
    rx.IGNORECASE,
)
_ZH_INTENT = rx.compile(
    r"^(?:近期|最近|目前|现在)?(?:正在|在)?"
    r"(?:寻找|找|想买|想要买|打算买|打算购买|计划买|计划购买|准备买|准备购买|要买|购买|需要买)"
    r"(?:一双|一个|一件|一台|一款|一辆|一套)?(.+)$"
)
_EN_SCENARIO = rx.compile(
    r"\b(?:mainly|mostly|primarily|use case|scenario|used for|uses? (?:it|them) for)\b",
    rx.IGNORECASE,
)
_ZH_SCENARIO = rx.compile(r"主要|场景|用于|用来")
_ZH_SCENE_PHRASE = rx.compile(r"^(?:更|主要)?(?:关注|注重|集中在|是)?(.+?)(?:的)?(?:使用)?场景$")

_EN_HEDGES = rx.compile(
    r"\b(?:likely|probably|possibly|may|might|seems?|appears?|tends?|often|usually|"
    r"inclined|interested)\b",
    rx.IGNORECASE,
)
_ZH_HEDGES = rx.compile(r"大概|可能|似乎|好像|倾向|感兴趣|常|大多|通常|一般|较")
_HAS_DATE = rx.compile(
    r"(?:19|20)\d{2}|\d{1,2}\s*月|\d{1,2}\s*日|"
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d|"
    r"\d{1,2}(?:st|nd|rd|th)?\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)",
    rx.IGNORECASE,
)

_CURRENCY = rx.compile(r"元|人民币|rmb|cny|yuan|块", rx.IGNORECASE)
_RANGE = rx.compile(r"^(\d+(?:\.\d+)?)\s*(?:-|~|–|to|至|到)\s*(\d+(?:\.\d+)?)$", rx.IGNORECASE)
_UPPER = rx.compile(r"^(?:<=|≤|<|＜|under|below|max|最多|不超过)\s*(\d+(?:\.\d+)?)(?:以内|以下)?$")
_LOWER = rx.compile(r"^(?:>=|≥|>|＞|over|above|min|至少)\s*(\d+(?:\.\d+)?)(?:以上)?$")
_NUMBER = rx.compile(r"^(\d+(?:\.\d+)?)$")
_COPULA = rx.compile(r"^(is|are|was|were|has|have)\s+")


def build_summaries(
    topic: str,
    facts: Sequence[FactRecord],
    now: datetime | None = None,
    *,
    window: timedelta = GROUP_WINDOW,
    max_chars: int = MAX_CONTENT_CHARS,
    max_facts: int = MAX_GROUP_FACTS,
) -> list[SummaryDraft]:
    """One SummaryDraft per group of the topic's active facts, ordered by event_start.

    ``now`` does not change the drafts (decay is applied at ranking time, see decay.py);
    it is accepted so callers can pass their clock without breaking idempotence.
    """
    del now
    active = [f for f in facts if f.validity == "active"]
    groups = group_facts(active, window, max_facts)
    return [_draft(topic, group, max_chars) for group in groups]


def group_facts(
    facts: Sequence[FactRecord],
    window: timedelta = GROUP_WINDOW,
    max_facts: int = MAX_GROUP_FACTS,
) -> list[list[FactRecord]]:
    """Connected components of facts linked by session, entity, slot family or time.

    A component of more than ``max_facts`` is split into its sessions, and a session still
    too big into consecutive runs in time order: a Summary stays a short memory, and new
    facts in a new session leave the earlier groups (and their Summaries) as they were."""
    ordered = _ordered(facts)
    graph: nx.Graph[str] = nx.Graph()
    graph.add_nodes_from(f.fact_id for f in ordered)
    for ids in _buckets(ordered).values():
        nx.add_path(graph, ids)
    latest: FactRecord | None = None
    for fact in ordered:  # sweep by start time, linking to the longest-running earlier fact
        if latest is not None and fact.time_start - latest.time_end <= window:
            graph.add_edge(latest.fact_id, fact.fact_id)
        if latest is None or fact.time_end > latest.time_end:
            latest = fact
    by_id = {f.fact_id: f for f in ordered}
    groups: list[list[FactRecord]] = []
    for comp in nx.connected_components(graph):
        groups += _split(_ordered([by_id[i] for i in comp]), max_facts)
    return sorted(groups, key=lambda g: (g[0].time_start, g[0].fact_id))


def _split(group: list[FactRecord], max_facts: int) -> list[list[FactRecord]]:
    if len(group) <= max_facts:
        return [group]
    sessions: dict[str, list[FactRecord]] = {}
    for fact in group:  # a fact in several sessions goes with the first by id
        key = min(fact.session_ids) if fact.session_ids else ""
        sessions.setdefault(key, []).append(fact)
    return [
        part[i : i + max_facts]
        for part in sessions.values()
        for i in range(0, len(part), max_facts)
    ]


def summary_key(topic: str, fact_ids: Iterable[str]) -> str:
    """Stable identity of a Summary: its topic and the set of its source facts."""
    ids = sorted(set(fact_ids))
    digest = hashlib.sha256("\x1f".join([normalize_name(topic), *ids]).encode("utf-8"))
    return "sum_" + digest.hexdigest()[:24]


def summary_fingerprint(content: str, source_fact_ids: Iterable[str]) -> str:
    body = "\x1f".join([content.strip(), *sorted(set(source_fact_ids))])
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def summary_changed(
    stored_content: str,
    stored_source_fact_ids: Iterable[str],
    draft: SummaryDraft,
    stored_confidence: float | None = None,
) -> bool:
    """True when the draft would be a new version of the stored Summary."""
    if summary_fingerprint(stored_content, stored_source_fact_ids) != summary_fingerprint(
        draft.content, draft.source_fact_ids
    ):
        return True
    return stored_confidence is not None and abs(stored_confidence - draft.confidence) > 1e-6


def match_previous(
    drafts: Sequence[SummaryDraft], previous: Mapping[str, Sequence[str]]
) -> dict[str, str]:
    """Pair new drafts with the stored Summaries they replace (draft key → previous id).

    ``previous`` maps a stored Summary id to its source fact ids. Pairs are chosen greedily
    by Jaccard overlap of sources; unpaired drafts are new, unpaired stored ones retire.
    """
    candidates: list[tuple[float, str, str]] = []
    for draft in drafts:
        key = summary_key(draft.topic, draft.source_fact_ids)
        mine = set(draft.source_fact_ids)
        for prev_id, prev_sources in previous.items():
            theirs = set(prev_sources)
            overlap = len(mine & theirs)
            if overlap:
                candidates.append((overlap / len(mine | theirs), key, prev_id))
    candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
    pairs: dict[str, str] = {}
    used: set[str] = set()
    for _, key, prev_id in candidates:
        if key not in pairs and prev_id not in used:
            pairs[key] = prev_id
            used.add(prev_id)
    return pairs


def summary_confidence(facts: Sequence[FactRecord]) -> float:
    """Evidence strength × amount.

    Per fact: explicit 1.0, repeated behaviour 0.8, single behaviour signal 0.6, times the
    fact's own confidence. Strong facts weigh more in the mean (Σs²/Σs), so hedged extras
    do not drown explicit statements; more facts raise the amount factor 1 - 0.5^(n+1).
    """
    if not facts:
        return 0.0
    strengths = []
    for fact in facts:
        if fact.explicit:
            strength = 1.0
        elif len(fact.source_message_ids) >= 2 or len(_behaviour(fact)) >= 2:
            strength = 0.8
        else:
            strength = 0.6
        strengths.append(strength * min(max(fact.confidence, 0.0), 1.0))
    total = sum(strengths)
    if total <= 0:
        return 0.0
    amount = 1.0 - 0.5 ** (len(facts) + 1)
    return round(sum(s * s for s in strengths) / total * amount, 4)


def summary_kind(facts: Sequence[FactRecord]) -> str:
    if _is_shopping(facts):
        return "shopping_intent"
    kinds: Counter[str] = Counter(f.kind for f in facts)
    if kinds["identity"] == len(facts):
        return "identity"
    if 2 * sum(kinds[k] for k in _LASTING_KINDS) >= len(facts):
        return "preference"
    if kinds["plan"]:
        return "plan"
    if 2 * kinds["timeline"] >= len(facts):
        return "timeline"
    return "general"


# --- drafts -------------------------------------------------------------------------


def _draft(topic: str, facts: list[FactRecord], max_chars: int) -> SummaryDraft:
    lang = _majority_lang(facts)
    kind = summary_kind(facts)
    composer = _compose_shopping if kind == "shopping_intent" else _compose_general
    render = partial(composer, lang=lang)
    content, shown = _fit(facts, render, max_chars)
    behaviour = Counter(e for f in facts for e in _behaviour(f))
    explicit = sum(1 for f in facts if f.explicit)
    anchors = _dedupe(a for f in facts for a in f.anchors)
    evidence: dict[str, Any] = {
        "fact_ids": [f.fact_id for f in facts],
        "message_ids": sorted({m for f in facts for m in f.source_message_ids}),
        "explicit": explicit,
        "implicit": len(facts) - explicit,
        "behaviour": dict(sorted(behaviour.items())),
        "kinds": dict(sorted(Counter(f.kind for f in facts).items())),
        "anchors": list(anchors),
        "content_fact_ids": [f.fact_id for f in shown],
    }
    return SummaryDraft(
        topic=topic,
        content=content,
        source_fact_ids=tuple(f.fact_id for f in facts),
        confidence=summary_confidence(facts),
        event_start=min(f.time_start for f in facts),
        event_end=max(f.time_end for f in facts),
        lang=lang,
        labels=_dedupe(label for f in facts for label in f.labels),
        entities=_entities(facts),
        decay_factor=decay_factor_for(kind),
        anchors=anchors,
        evidence=evidence,
        kind=kind,
    )


def _fit(
    facts: list[FactRecord], render: Callable[[Sequence[FactRecord]], str], max_chars: int
) -> tuple[str, list[FactRecord]]:
    """Render all facts, or the most confident/recent ones that fit in max_chars."""
    text = render(facts)
    if len(text) <= max_chars:
        return text, facts
    ranked = sorted(facts, key=lambda f: (-f.confidence, not f.explicit, _neg_time(f), f.fact_id))
    chosen: set[str] = set()
    for fact in ranked:
        trial = [f for f in facts if f.fact_id in chosen or f.fact_id == fact.fact_id]
        if len(render(trial)) <= max_chars:
            chosen.add(fact.fact_id)
    if not chosen:
        return render([ranked[0]])[: max_chars - 1] + "…", [ranked[0]]
    shown = [f for f in facts if f.fact_id in chosen]
    return render(shown), shown


def _neg_time(fact: FactRecord) -> float:
    return -fact.time_end.timestamp()


# --- grouping helpers ---------------------------------------------------------------


def _ordered(facts: Iterable[FactRecord]) -> list[FactRecord]:
    return sorted(facts, key=lambda f: (f.time_start, f.time_end, f.fact_id))


def _buckets(facts: Sequence[FactRecord]) -> dict[str, list[str]]:
    """Facts sharing a key; a PERSON named in most facts (the speaker) links nothing."""
    person_df = Counter(
        e.normalized for f in facts for e in set(f.entities) if e.type.upper() == "PERSON"
    )
    hub_limit = max(3, len(facts) // 2)
    buckets: dict[str, list[str]] = {}
    for fact in facts:
        keys = {f"session:{s}" for s in fact.session_ids}
        keys |= {
            f"entity:{e.normalized}"
            for e in fact.entities
            if e.type.upper() not in _UNLINKED_TYPES
            and not (e.type.upper() == "PERSON" and person_df[e.normalized] > hub_limit)
        }
        if fact.slot:
            keys.add(f"slot:{_slot_family(fact.slot)}")
        for key in sorted(keys):
            buckets.setdefault(key, []).append(fact.fact_id)
    return buckets


def _slot_family(slot: str) -> str:
    return slot.split(":", 1)[0].strip().lower()


def _behaviour(fact: FactRecord) -> list[str]:
    return [e for e in fact.event_types if e != "message"]


def _majority_lang(facts: Sequence[FactRecord]) -> Lang:
    counts = Counter(f.lang for f in facts)
    if counts["zh"] != counts["en"]:
        return "zh" if counts["zh"] > counts["en"] else "en"
    return facts[-1].lang


def _entities(facts: Sequence[FactRecord]) -> tuple[EntityRef, ...]:
    seen: dict[str, EntityRef] = {}
    for fact in facts:
        for ent in fact.entities:
            key = ent.normalized or normalize_name(ent.name)
            if key not in seen:
                seen[key] = ent
    return tuple(seen.values())


def _dedupe(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i for i in items if i))


# --- composing content --------------------------------------------------------------


def _split_subject(content: str, lang: Lang) -> tuple[str | None, str]:
    text = content.strip().rstrip(_TRAIL)
    if lang == "zh":
        m = _ZH_USER.match(text)
        return ("该用户", text[m.end() :].strip()) if m else (None, text)
    m = _EN_USER.match(text)
    if m:
        return "The user", text[m.end() :]
    m = _EN_NAME.match(text)
    if m and m.group(1).split()[0].lower() not in _EN_NOT_NAMES:
        return m.group(1), text[m.end("gap") :]
    return None, text


def _hedge(pred: str, fact: FactRecord, lang: Lang) -> str:
    """Keep uncertainty in words: implicit facts without a hedge get one."""
    hedges = _ZH_HEDGES if lang == "zh" else _EN_HEDGES
    if fact.explicit or hedges.search(pred):
        return pred
    if lang == "zh":
        return "可能" + pred
    m = _COPULA.match(pred)
    return f"{m.group(1)} likely {pred[m.end() :]}" if m else "likely " + pred


def _date_tag(fact: FactRecord, text: str, lang: Lang) -> str:
    if fact.kind not in _DATED_KINDS or _HAS_DATE.search(text):
        return ""
    start, end = fact.time_start.date().isoformat(), fact.time_end.date().isoformat()
    span = start if start == end else (f"{start} 至 {end}" if lang == "zh" else f"{start} to {end}")
    return f"（{span}）" if lang == "zh" else f" ({span})"


def _compose_general(facts: Sequence[FactRecord], lang: Lang) -> str:
    """Facts joined per subject: "Caroline went …; is researching …. Melanie …"."""
    by_subject: dict[str, list[str]] = {}
    sentences: list[tuple[str | None, str]] = []  # (subject, sentence); None subject = whole
    for fact in facts:
        subject, pred = _split_subject(fact.content, fact.lang)
        if fact.lang != lang:  # another language: keep it as its own sentence
            subject = None
        text = (pred if subject else fact.content.strip().rstrip(_TRAIL)) or fact.content
        text = _hedge(text, fact, fact.lang) + _date_tag(fact, text, fact.lang)
        if subject is None:
            sentences.append((None, text + ("。" if fact.lang == "zh" else ".")))
            continue
        if subject not in by_subject:
            by_subject[subject] = []
            sentences.append((subject, ""))
        by_subject[subject].append(text)
    out: list[str] = []
    for subject, text in sentences:
        if subject is None:
            out.append(text)
        elif lang == "zh":
            out.append(subject + "；".join(by_subject[subject]) + "。")
        else:
            out.append(f"{subject} " + "; ".join(by_subject[subject]) + ".")
    text = ""
    for sentence in out:  # no space after a Chinese full stop
        text += sentence if not text or text.endswith("。") else " " + sentence
    return text


def _compose_shopping(facts: Sequence[FactRecord], lang: Lang) -> str:
    """Intent, scenario, likes, budget/price/size, avoids, the rest — in that order."""
    zh = lang == "zh"
    intent: str | None = None
    intent_pred: str | None = None
    scenario: list[str] = []
    likes: list[str] = []
    avoids: list[str] = []
    other: list[str] = []
    slots: dict[str, FactRecord] = {}
    people: list[FactRecord] = []  # facts about someone else: their own sentences
    for fact in facts:
        subject, _ = _split_subject(fact.content, fact.lang)
        if subject not in (None, "该用户", "The user"):
            people.append(fact)
            continue
        pred = _user_predicate(fact)
        role = _slot_role(fact)
        if role is not None:
            if role not in slots or _later(fact, slots[role]):
                slots[role] = fact
            continue
        obj = _intent_object(pred, fact.lang)
        if obj is not None and intent is None and intent_pred is None:
            intent = obj
        elif fact.kind == "plan" and intent is None and intent_pred is None:
            intent_pred = pred
        elif fact.polarity == "avoids":
            avoids.append(_hedge(pred, fact, fact.lang))
        elif (_ZH_SCENARIO if fact.lang == "zh" else _EN_SCENARIO).search(pred):
            scenario.append(_scene(pred, fact.lang))
        elif fact.polarity == "likes" or fact.kind == "preference":
            likes.append(_hedge(pred, fact, fact.lang))
        else:
            other.append(_hedge(pred, fact, fact.lang))
    subject = "该用户" if zh else "The user"
    if intent is not None:
        head = _wording("shopping_intent", lang, intent=intent) or (
            f"{subject}想要{intent}" if zh else f"{subject} wants {intent}"
        )
    elif intent_pred is not None:
        head = f"{subject}{intent_pred}" if zh else f"{subject} {intent_pred}"
    else:
        head = subject
    groups = [g for g in (scenario, likes, _slot_phrases(slots, lang), avoids, other) if g]
    text = head
    for i, group in enumerate(groups):
        if i == 0 and head == subject:
            sep = "" if zh else " "
        else:
            sep = ("，" if zh else ", ") if i == 0 else ("；" if zh else "; ")
        text += sep + ("，".join(group) if zh else _en_join(group))
    text += "。" if zh else "."
    if people:
        text += ("" if zh else " ") + _compose_general(people, lang)
    return text


def _user_predicate(fact: FactRecord) -> str:
    """The fact without its subject when the subject is the user; else the whole fact."""
    subject, pred = _split_subject(fact.content, fact.lang)
    if subject in ("该用户", "The user") and pred:
        return pred
    return fact.content.strip().rstrip(_TRAIL)


def _en_join(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _later(a: FactRecord, b: FactRecord) -> bool:
    return (a.time_end, a.fact_id) > (b.time_end, b.fact_id)


def _intent_object(pred: str, lang: Lang) -> str | None:
    m = (_ZH_INTENT if lang == "zh" else _EN_INTENT).match(pred)
    return m.group(1).strip() if m else None


def _scene(pred: str, lang: Lang) -> str:
    if lang == "zh":
        m = _ZH_SCENE_PHRASE.match(pred)
        if m:
            return f"主要使用场景是{m.group(1).strip()}"
    return pred


def _is_shopping(facts: Sequence[FactRecord]) -> bool:
    for fact in facts:
        if _intent_object(_user_predicate(fact), fact.lang) is not None:
            return True
    return sum(1 for f in facts if _slot_role(f) is not None) >= 2


def _slot_role(fact: FactRecord) -> str | None:
    if not fact.slot or not fact.value:
        return None
    family = _slot_family(fact.slot)
    if family.startswith("budget") or family == "max_price":
        return "budget" if _money(fact.value) else None
    if family in ("price_range", "price"):
        return "price" if _money(fact.value) else None
    if family == "size" or family.endswith("_size"):
        return "size"
    return None


def _money(value: str) -> tuple[str, str, str] | None:
    """Parse "<=800", "500-800", ">300", "800元" into (form, low, high)."""
    v = _CURRENCY.sub("", value).replace("¥", "").replace("￥", "").strip()
    if m := _RANGE.match(v):
        return "range", m.group(1), m.group(2)
    if m := _UPPER.match(v):
        return "upper", "", m.group(1)
    if m := _LOWER.match(v):
        return "lower", m.group(1), ""
    if m := _NUMBER.match(v):
        return "about", m.group(1), m.group(1)
    return None


def _money_text(parsed: tuple[str, str, str], lang: Lang) -> str:
    form, low, high = parsed
    if lang == "zh":
        return {
            "range": f"{low}-{high} 元",
            "upper": f"{high} 元以内",
            "lower": f"{low} 元以上",
            "about": f"{low} 元左右",
        }[form]
    return {
        "range": f"{low}-{high}",
        "upper": f"under {high}",
        "lower": f"over {low}",
        "about": f"about {low}",
    }[form]


def _slot_phrases(slots: Mapping[str, FactRecord], lang: Lang) -> list[str]:
    """Budget (with the browsed price range in brackets), then size; "大概率" when implicit."""
    zh = lang == "zh"
    phrases: list[str] = []
    price = slots.get("price")
    price_money = _money_text(_money(price.value or "") or ("about", "", ""), lang) if price else ""
    if "budget" in slots:
        fact = slots["budget"]
        parsed = _money(fact.value or "") or ("about", "", "")
        money = _money_text(parsed, lang)
        bound = parsed[0] in ("upper", "lower")
        if zh:
            text = f"预算{'' if fact.explicit else '大概率'}{'在' if bound else '为'} {money}"
        else:
            hedge = "" if fact.explicit else "most likely "
            text = f"{hedge}has a budget {'' if bound else 'of '}{money}"
        if price is not None:
            if zh:
                text += f"（{'价格区间' if price.explicit else '常看'} {price_money}）"
            else:
                text += f" ({'price range' if price.explicit else 'often browsing'} {price_money})"
        phrases.append(text)
    elif price is not None:
        if zh:
            phrases.append(f"{'价格区间为' if price.explicit else '常看'} {price_money}")
        else:
            verb = "is looking at" if price.explicit else "often browses"
            phrases.append(f"{verb} {price_money}")
    if "size" in slots:
        fact = slots["size"]
        key = "size" if fact.explicit else "size_implicit"
        value = fact.value or ""
        phrases.append(_wording(key, lang, value=value) or f"size {value}")
    return phrases


def _wording(key: str, lang: Lang, **values: str) -> str:
    """A pack wording template with its {placeholders} filled ("" when no pack has it)."""
    text = current_pack().words(key, lang)
    for name, value in values.items():
        text = text.replace("{" + name + "}", value)
    return text
