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

from consolidation.decay import decay_factor_for
from consolidation.summary_text import (
    _compose_general,
    _compose_shopping,
    _is_shopping,
    _slot_family,
)
from consolidation.topic_groups import whose
from extract.types import EntityRef, FactRecord, Lang, SummaryDraft
from packs.taxonomy import normalize_name

GROUP_WINDOW = timedelta(hours=6)
MAX_CONTENT_CHARS = 600
MAX_GROUP_FACTS = 16  # a bigger group is split by session, then into runs in time order

# Entity types that carry a value, not an identity: sharing "800" links nothing.
_UNLINKED_TYPES = frozenset(
    {"MONEY", "SIZE", "DATE", "TIME", "CARDINAL", "ORDINAL", "PERCENT", "QUANTITY"}
)
_LASTING_KINDS = frozenset({"preference", "constraint", "behavior_pattern", "identity"})


def build_summaries(
    topic: str,
    facts: Sequence[FactRecord],
    now: datetime | None = None,
    *,
    window: timedelta = GROUP_WINDOW,
    max_chars: int = MAX_CONTENT_CHARS,
    max_facts: int = MAX_GROUP_FACTS,
    together: Mapping[str, str] | None = None,
) -> list[SummaryDraft]:
    """One SummaryDraft per group of the topic's active facts, ordered by event_start; a
    group speaks of one subject (the user, or one entity of their world). `together`: fact
    id → the stored Summary that holds it; the facts of one stay linked (planned again with
    only part of their Topic, a Summary's facts are one group unless new ones split it).

    ``now`` does not change the drafts (decay is applied at ranking time, see decay.py);
    it is accepted so callers can pass their clock without breaking idempotence.
    """
    del now
    by_subject: dict[str | None, list[FactRecord]] = {}
    for f in facts:
        if f.validity == "active":
            by_subject.setdefault(whose(f), []).append(f)
    groups = [
        g
        for part in by_subject.values()
        for g in group_facts(part, window, max_facts, together or {})
    ]
    groups.sort(key=lambda g: (g[0].time_start, g[0].fact_id))
    return [_draft(topic, group, max_chars) for group in groups]


def group_facts(
    facts: Sequence[FactRecord],
    window: timedelta = GROUP_WINDOW,
    max_facts: int = MAX_GROUP_FACTS,
    together: Mapping[str, str] | None = None,
) -> list[list[FactRecord]]:
    """Connected components of facts linked by session, entity, slot family or time.

    A component of more than ``max_facts`` is split into its sessions, and a session still
    too big into consecutive runs in time order: a Summary stays a short memory, and new
    facts in a new session leave the earlier groups (and their Summaries) as they were."""
    ordered = _ordered(facts)
    graph: nx.Graph[str] = nx.Graph()
    graph.add_nodes_from(f.fact_id for f in ordered)
    for ids in _buckets(ordered, together or {}).values():
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
        subject=facts[0].subject if whose(facts[0]) is not None else None,
        subject_kind=facts[0].subject_kind if whose(facts[0]) is not None else "user",
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


def _buckets(facts: Sequence[FactRecord], together: Mapping[str, str]) -> dict[str, list[str]]:
    """Facts sharing a key (one stored Summary is one); a PERSON named in most facts (the
    speaker) links nothing."""
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
        if fact.fact_id in together:
            keys.add(f"summary:{together[fact.fact_id]}")
        for key in sorted(keys):
            buckets.setdefault(key, []).append(fact.fact_id)
    return buckets


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
