"""Where one group of Facts is filed (topics.py): the taxonomy entry the group matches, the
Topic its session, slot or entities vote for, the nearest existing Topic by embedding, or
a new Topic named after its key phrase."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any, Literal

from consolidation.topic_groups import _cosine, _gap, _shared_entities
from consolidation.topic_names import FALLBACK_TOPIC, _family, derive_topic_name, key_phrase
from extract.types import FactRecord
from packs.taxonomy import CUE, STRONG, normalize_name

Method = Literal["taxonomy", "embedding", "context", "new"]


def _group_taxonomy(
    group: Sequence[FactRecord],
    scores: Mapping[str, Mapping[str, float]],
    known_names: set[str],
    order: Mapping[str, int],
) -> tuple[str, float] | None:
    """The entry the group as a whole matches best: at least one strong hit, cues count
    on top; a tie goes to a Topic the user already has, then to the entry named first."""
    total: dict[str, float] = {}
    strong: set[str] = set()
    first: dict[str, int] = {}  # the goal is usually named first
    for i, f in enumerate(group):
        for name, score in scores[f.fact_id].items():
            key = normalize_name(name)
            first.setdefault(key, i)
            # one vote per fact and entry: a label repeats the word it came from
            total[key] = total.get(key, 0.0) + min(score, STRONG)
            if score >= STRONG:
                strong.add(key)
    if not strong:
        return None
    best = min(
        strong, key=lambda n: (-total[n], n not in known_names, first[n], order.get(n, 1 << 20))
    )
    return best, total[best] / max(sum(total.values()), 1e-9)


def _file_group(
    group: Sequence[FactRecord],
    scores: Mapping[str, Mapping[str, float]],
    vecs: Mapping[str, Sequence[float]],
    voters: Sequence[tuple[FactRecord, str]],
    topic_vecs: Sequence[tuple[str, Sequence[float]]],
    filed: Mapping[str, Sequence[Sequence[float]]],
    known_names: set[str],
    order: Mapping[str, int],
    window: timedelta,
    threshold: float,
    *,
    weak: bool,
    nlp: Any,
) -> tuple[str, Method, float]:
    tax = _group_taxonomy(group, scores, known_names, order)
    if tax is not None and tax[0] in known_names:
        return tax[0], "taxonomy", tax[1]
    votes: dict[str, float] = {}
    for f in group:
        # a group with a domain of its own only listens to its session, slot or entities
        pool = voters if tax is None else [(o, n) for o, n in voters if _bound(f, o)]
        ctx = _context_topic(f, pool, window)
        if ctx is not None:
            votes[ctx[0]] = votes.get(ctx[0], 0.0) + ctx[1]
    if votes:
        name = max(sorted(votes), key=lambda n: votes[n])
        # the session's goal keeps a group whose own domain rests on one word
        hinted = any(scores[f.fact_id].get(name, 0.0) > 0 for f in group)
        if tax is None or hinted or _strength(group, scores, tax[0]) < 2 * STRONG:
            return name, "context", votes[name] / sum(votes.values())
    members = [vecs[f.fact_id] for f in group if f.fact_id in vecs]
    near = _nearest(members, topic_vecs, filed)
    if near is not None and near[1] >= threshold:
        return near[0], "embedding", near[1]
    if tax is not None:
        return tax[0], "taxonomy", tax[1]
    if tax is None and all(f.kind == "identity" for f in group) and "identity" in order:
        return "identity", "taxonomy", CUE
    if weak and (near is not None or filed):
        if near is not None:
            return near[0], "embedding", near[1]
        return next(reversed(list(filed))), "context", 0.0
    return key_phrase(group, nlp) or _record_name(group), "new", 0.0


def _bound(a: FactRecord, b: FactRecord) -> bool:
    """One session, one slot or a shared entity."""
    same_slot = bool(a.slot and b.slot and _family(a.slot) == _family(b.slot))
    return (
        bool(set(a.session_ids) & set(b.session_ids)) or same_slot or bool(_shared_entities(a, b))
    )


def _strength(
    group: Sequence[FactRecord], scores: Mapping[str, Mapping[str, float]], name: str
) -> float:
    return sum(scores[f.fact_id].get(name, 0.0) for f in group)


def _record_name(group: Sequence[FactRecord]) -> str:
    """No noun phrase: a label, entity or slot of the group, never a piece of a clause."""
    for f in group:
        name = derive_topic_name(f, noun=False)
        if name != FALLBACK_TOPIC:
            return name
    return FALLBACK_TOPIC


def _nearest(
    members: Sequence[Sequence[float]],
    topic_vecs: Sequence[tuple[str, Sequence[float]]],
    filed: Mapping[str, Sequence[Sequence[float]]],
) -> tuple[str, float] | None:
    """The closest Topic to any member or to the members' centroid."""
    if not members:
        return None
    probes = [*members, _centroid(members)] if len(members) > 1 else list(members)
    candidates = list(topic_vecs)
    candidates += [(n, _centroid(v)) for n, v in filed.items() if v]
    best: tuple[str, float] | None = None
    for name, tvec in candidates:
        sim = max(_cosine(p, tvec) for p in probes)
        if best is None or sim > best[1]:
            best = (name, sim)
    return best


def _centroid(vecs: Sequence[Sequence[float]]) -> list[float]:
    return [sum(col) / len(vecs) for col in zip(*vecs, strict=True)]


def _context_topic(
    fact: FactRecord, voters: Sequence[tuple[FactRecord, str]], window: timedelta
) -> tuple[str, float] | None:
    """Weighted vote of neighbouring anchored facts; returns (topic, share of the vote)."""
    votes: dict[str, float] = {}
    for other, topic in voters:
        if other.fact_id == fact.fact_id:
            continue
        weight = _closeness(fact, other, window)
        if weight > 0:
            votes[topic] = votes.get(topic, 0.0) + weight
    if not votes:
        return None
    total = sum(votes.values())
    name = max(sorted(votes), key=lambda n: votes[n])
    return name, votes[name] / total


def _closeness(a: FactRecord, b: FactRecord, window: timedelta) -> float:
    same_slot = bool(a.slot and b.slot and _family(a.slot) == _family(b.slot))
    same_session = bool(set(a.session_ids) & set(b.session_ids))
    gap = _gap(a, b)
    if not (same_slot or same_session or gap <= window):
        return 0.0
    weight = 1.0 / (1.0 + gap / max(window, timedelta(seconds=1)))
    if same_slot:
        weight += 2.0
    shared = {e.normalized for e in a.entities} & {e.normalized for e in b.entities}
    if shared:
        weight += 1.0
    return weight
