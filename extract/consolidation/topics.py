"""Assign Facts to Topics: taxonomy, then embedding, then session context, then a new Topic.

Pure and deterministic: graph/ passes the batch's Facts and the user's existing Topics and
gets back one ``TopicChoice`` per fact id.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Literal

import networkx as nx

from extract.consolidation.topic_names import (
    _GENERIC_LABELS,
    _VALUE_TYPES,
    FALLBACK_TOPIC,
    _family,
    canonical_topic_name,
    derive_topic_name,
    key_phrase,
    localized_topic_name,
    slot_family,
    topic_embedding_text,
)
from extract.packs import current as current_pack
from extract.packs.taxonomy import CUE, STRONG, Taxonomy, match_scores, normalize_name
from extract.types import Embedder, FactRecord, Lang, TopicRecord

Method = Literal["taxonomy", "embedding", "context", "new"]

DEFAULT_THRESHOLD = 0.8  # cosine, fact embedding vs Topic embedding
DEFAULT_CONTEXT_WINDOW = timedelta(minutes=30)
LINK_THRESHOLD = 0.9  # cosine between two facts of one batch that puts them in one group


@dataclass(frozen=True)
class TopicChoice:
    name: str
    is_new: bool
    method: Method
    score: float
    topic_id: str | None = None  # set when the name is one of the user's existing Topics


def assign_topics(
    facts: Sequence[FactRecord],
    existing: Sequence[TopicRecord],
    embedder: Embedder | None,
    taxonomy: Taxonomy | None = None,
    threshold: float = DEFAULT_THRESHOLD,
    *,
    context_window: timedelta = DEFAULT_CONTEXT_WINDOW,
    known: Sequence[tuple[FactRecord, str]] = (),
    nlp: Any = None,
) -> dict[str, TopicChoice]:
    """Choose a Topic for every fact (fact_id → TopicChoice).

    The batch's facts are grouped first (``group_facts``: one goal → one group) and each
    group is filed as a whole, larger groups first, weak ones last: (a) the taxonomy entry
    the group as a whole matches best (the user's existing Topic names and aliases count
    as entries, and win ties); (b) the Topic of already-filed facts (``known`` and earlier
    groups) in the same session, on the same slot or sharing an entity; (c) an existing
    Topic whose embedding is within ``threshold`` of a member or the group's centroid;
    (d) a weak group (one fact, no taxonomy or entity signal) joins the user's nearest
    Topic; (e) a new Topic named after the group's key noun phrase (``key_phrase``;
    ``nlp`` is the English spaCy pipeline, optional).
    """
    ordered = sorted(facts, key=lambda f: (f.time_start, f.fact_id))
    # a Topic is known by its taxonomy name in any language ("旅行" is "travel")
    existing_by_name = {canonical_topic_name(t.name): t for t in existing}
    taxonomy = taxonomy if taxonomy is not None else current_pack().taxonomy
    tax = taxonomy.extended(
        [(canonical_topic_name(t.name), (normalize_name(t.name), *t.aliases)) for t in existing]
    )
    order = {normalize_name(e.name): i for i, e in enumerate(tax.entries)}

    scores = {f.fact_id: match_scores(_haystack(f), tax) for f in ordered}
    vecs = _fact_vectors(ordered, embedder) if embedder is not None or _has_vectors(ordered) else {}
    groups = group_facts(ordered, scores, vecs, context_window, max(threshold, LINK_THRESHOLD))
    topic_vecs = [(canonical_topic_name(n), v) for n, v in _topic_vectors(existing, embedder)]
    voters: list[tuple[FactRecord, str]] = [(f, canonical_topic_name(n)) for f, n in known]
    filed: dict[str, list[Sequence[float]]] = {}  # topic → member vectors, this batch

    weak = [g for g in groups if _is_weak(g, scores)]
    result: dict[str, TopicChoice] = {}
    # the larger groups carry the goals: they are filed first, lone facts join them
    strong = sorted((g for g in groups if not _is_weak(g, scores)), key=lambda g: -len(g))
    for group in strong + weak:
        known_names = set(existing_by_name) | set(filed)
        name, method, score = _file_group(
            group,
            scores,
            vecs,
            voters,
            topic_vecs,
            filed,
            known_names,
            order,
            context_window,
            threshold,
            weak=_is_weak(group, scores),
            nlp=nlp,
        )
        voters.extend((f, name) for f in group)
        filed.setdefault(name, []).extend(vecs[f.fact_id] for f in group if f.fact_id in vecs)
        topic = existing_by_name.get(name)
        for f in group:
            own = _best(scores[f.fact_id])
            fact_method: Method = method
            if method == "taxonomy" and (own is None or own[0] != name):
                fact_method = "context"  # filed with its group, not by its own words
            result[f.fact_id] = TopicChoice(
                name=topic.name if topic else name,
                is_new=topic is None,
                method=fact_method,
                score=round(score, 4),
                topic_id=topic.topic_id if topic else None,
            )
    return _localized(result, ordered)


def _localized(
    choices: Mapping[str, TopicChoice], facts: Sequence[FactRecord]
) -> dict[str, TopicChoice]:
    """A new Topic named in the language most of its Facts are written in (English on a
    tie); its names in the other languages stay its aliases (``topic_embedding_text``)."""
    langs: dict[str, Counter[str]] = {}
    for f in facts:
        choice = choices[f.fact_id]
        if choice.is_new:
            langs.setdefault(choice.name, Counter())[f.lang] += 1
    names = {name: localized_topic_name(name, _majority(count)) for name, count in langs.items()}
    return {fid: replace(c, name=names[c.name]) if c.is_new else c for fid, c in choices.items()}


def _majority(count: Counter[str]) -> Lang:
    return "zh" if count["zh"] > count["en"] else "en"


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
    for i, a in enumerate(facts):
        for b in facts[i + 1 :]:
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


def _has_vectors(facts: Sequence[FactRecord]) -> bool:
    return any(f.embedding for f in facts)


def _is_weak(group: Sequence[FactRecord], scores: Mapping[str, Mapping[str, float]]) -> bool:
    """One fact with no taxonomy match, domain label or entity: it cannot found a Topic."""
    if len(group) > 1:
        return False
    f = group[0]
    if _best(scores[f.fact_id]) is not None or f.kind == "identity":
        return False
    if any(label.lower() not in _GENERIC_LABELS for label in f.labels):
        return False
    return not any(e.type.upper() not in _VALUE_TYPES for e in f.entities)


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


def _haystack(fact: FactRecord) -> str:
    # kind labels ("identity", "preference") say how a fact was made, not its domain
    labels = [label for label in fact.labels if label.lower() not in _GENERIC_LABELS]
    parts = [fact.content, *labels, *(e.name for e in fact.entities)]
    if fact.slot:
        parts.append(_family(fact.slot))
    return " | ".join(parts)


def _best(scores: Mapping[str, float]) -> tuple[str, float] | None:
    # Dict order is match order (longest term first): a tie keeps the more specific hit.
    best: tuple[str, float] | None = None
    for name, score in scores.items():
        if score >= STRONG and (best is None or score > best[1]):
            best = (name, score)
    return best


def _topic_vectors(
    existing: Sequence[TopicRecord], embedder: Embedder | None
) -> list[tuple[str, Sequence[float]]]:
    vecs: list[tuple[str, Sequence[float]]] = []
    missing = [t for t in existing if t.embedding is None]
    computed: dict[str, Sequence[float]] = {}
    if missing and embedder is not None:
        texts = [topic_embedding_text(t.name, t.aliases) for t in missing]
        for t, v in zip(missing, embedder.embed_passages(texts), strict=True):
            computed[t.topic_id] = v
    for t in existing:
        vec = t.embedding if t.embedding is not None else computed.get(t.topic_id)
        if vec is not None:
            vecs.append((t.name, vec))
    return vecs


def _fact_vectors(
    facts: Sequence[FactRecord], embedder: Embedder | None
) -> dict[str, Sequence[float]]:
    out: dict[str, Sequence[float]] = {f.fact_id: f.embedding for f in facts if f.embedding}
    missing = [f for f in facts if f.fact_id not in out]
    if missing and embedder is not None:
        vecs = embedder.embed_passages([f.content for f in missing])
        for f, v in zip(missing, vecs, strict=True):
            out[f.fact_id] = v
    return out


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    if len(a) != len(b):
        return 0.0
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    na = math.sqrt(sum(x * x for x in a))
    nb = math.sqrt(sum(y * y for y in b))
    return dot / (na * nb) if na and nb else 0.0


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


def _gap(a: FactRecord, b: FactRecord) -> timedelta:
    later = max(a.time_start, b.time_start)
    earlier_end = min(a.time_end, b.time_end)
    return max(later - earlier_end, timedelta(0))


# the names of Topics live in topic_names.py; importers keep this path
__all__ = [
    "DEFAULT_CONTEXT_WINDOW",
    "DEFAULT_THRESHOLD",
    "FALLBACK_TOPIC",
    "LINK_THRESHOLD",
    "Method",
    "TopicChoice",
    "assign_topics",
    "derive_topic_name",
    "group_facts",
    "key_phrase",
    "slot_family",
    "topic_embedding_text",
]
