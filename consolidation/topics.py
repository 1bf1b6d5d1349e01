"""Assign Facts to Topics: taxonomy, then embedding, then session context, then a new Topic.

Pure and deterministic: graph/ passes the batch's Facts and the user's existing Topics and
gets back one ``TopicChoice`` per fact id.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from consolidation.topic_filing import Method, _file_group
from consolidation.topic_groups import DEFAULT_CONTEXT_WINDOW, group_facts
from consolidation.topic_names import (
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
from extract.types import Embedder, FactRecord, Lang, TopicRecord
from packs import current as current_pack
from packs.taxonomy import STRONG, Taxonomy, match_scores, normalize_name

DEFAULT_THRESHOLD = 0.8  # cosine, fact embedding vs Topic embedding
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


# the names of Topics live in topic_names.py, the grouping in topic_groups.py and the
# filing of a group in topic_filing.py; importers keep this path
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
