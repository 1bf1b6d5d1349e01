"""The Facts of one goal, grouped before they are filed (topics.py): a graph that links
Facts of one subject (the user, or one entity of their world) of one session close in time
(unless their own taxonomy matches disagree), on one slot, sharing an entity or near in
embedding; its communities are the groups."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

import networkx as nx

from consolidation.topic_names import _VALUE_TYPES
from extract.types import FactRecord
from packs.taxonomy import STRONG, normalize_name

DEFAULT_CONTEXT_WINDOW = timedelta(minutes=30)


def group_facts(
    facts: Sequence[FactRecord],
    scores: Mapping[str, Mapping[str, float]],
    vecs: Mapping[str, Sequence[float]],
    window: timedelta = DEFAULT_CONTEXT_WINDOW,
    link: float = 0.9,
) -> list[list[FactRecord]]:
    """Facts of one goal: a graph linking facts of one session close in time (unless their
    own taxonomy matches disagree), on one slot, sharing an entity or with cosine ≥ ``link``;
    its communities, each in time order, earliest first."""
    graph = nx.Graph()
    graph.add_nodes_from(f.fact_id for f in facts)
    who = {f.fact_id: whose(f) for f in facts}
    for i, a in enumerate(facts):
        for b in facts[i + 1 :]:
            if who[a.fact_id] != who[b.fact_id]:
                continue  # one Summary speaks of one subject: the user, or one of their world
            weight = _link(a, b, scores, vecs, window, link)
            if weight > 0:
                graph.add_edge(a.fact_id, b.fact_id, weight=weight)
    by_id = {f.fact_id: f for f in facts}
    groups: list[list[FactRecord]] = []
    for part in nx.connected_components(graph):
        sub = graph.subgraph(part)
        communities = (
            nx.community.louvain_communities(sub, weight="weight", seed=0)
            if sub.number_of_edges() > 1
            else [part]
        )
        for community in communities:
            groups.append(sorted((by_id[i] for i in community), key=_when))
    return sorted(groups, key=lambda g: _when(g[0]))


def _when(f: FactRecord) -> tuple[datetime, str]:
    return (f.time_start, f.fact_id)


def _link(
    a: FactRecord,
    b: FactRecord,
    scores: Mapping[str, Mapping[str, float]],
    vecs: Mapping[str, Sequence[float]],
    window: timedelta,
    link: float,
) -> float:
    weight = 0.0
    if a.slot and b.slot and a.slot == b.slot:
        weight += 2.0
    if _shared_entities(a, b):
        weight += 1.0
    va, vb = vecs.get(a.fact_id), vecs.get(b.fact_id)
    if va is not None and vb is not None and _cosine(va, vb) >= link:
        weight += 1.0
    same_session = bool(set(a.session_ids) & set(b.session_ids)) or not (
        a.session_ids or b.session_ids
    )
    if (
        same_session
        and _gap(a, b) <= window
        and not _disagree(scores[a.fact_id], scores[b.fact_id])
    ):
        weight += 1.0
    return weight


def whose(f: FactRecord) -> str | None:
    """The subject a Fact speaks of, normalised; None: the user."""
    return None if f.subject_kind == "user" or not f.subject else normalize_name(f.subject)


def _disagree(a: Mapping[str, float], b: Mapping[str, float]) -> bool:
    """Both facts name a domain (a strong hit on one side) and they share none."""
    strong = any(s >= STRONG for s in (*a.values(), *b.values()))
    return bool(strong and a and b and not set(a) & set(b))


def _shared_entities(a: FactRecord, b: FactRecord) -> set[str]:
    def names(f: FactRecord) -> set[str]:
        return {
            normalize_name(e.normalized or e.name)
            for e in f.entities
            if e.type.upper() not in _VALUE_TYPES and (e.normalized or e.name).strip()
        }

    return names(a) & names(b)


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    if len(a) != len(b):
        return 0.0
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


def _gap(a: FactRecord, b: FactRecord) -> timedelta:
    later = max(a.time_start, b.time_start)
    earlier_end = min(a.time_end, b.time_end)
    return max(later - earlier_end, timedelta(0))
