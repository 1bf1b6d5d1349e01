"""Assign Facts to Topics: taxonomy, then embedding, then session context, then a new Topic.

Pure and deterministic: graph/ passes the batch's Facts and the user's existing Topics and
gets back one ``TopicChoice`` per fact id.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Literal

from extract import rx
from extract.packs import current as current_pack
from extract.taxonomy import (
    CUE,
    STRONG,
    Taxonomy,
    match_scores,
    normalize_name,
)
from extract.types import Embedder, FactRecord, TopicRecord

Method = Literal["taxonomy", "embedding", "context", "new"]

DEFAULT_THRESHOLD = 0.8  # cosine, fact embedding vs Topic embedding
DEFAULT_CONTEXT_WINDOW = timedelta(minutes=30)
FALLBACK_TOPIC = "general"

# Labels that say how a fact was made, not what it is about.
# fmt: off
_GENERIC_LABELS = frozenset(
    {
        "preference", "constraint", "plan", "identity", "behavior_pattern", "behavior",
        "behaviour", "timeline", "fact", "explicit", "implicit", "message", "search",
        "filter", "view", "click", "favorite", "dwell", "skip", "purchase", "tool_call",
        "chat", "user", "general", "misc", "other", "likes", "avoids", "neutral",
    }
)
# fmt: on
# Entity types that name a value rather than a subject.
_VALUE_TYPES = frozenset(
    {"MONEY", "SIZE", "DATE", "TIME", "CARDINAL", "ORDINAL", "PERCENT", "QUANTITY", "PERSON"}
)
# fmt: off
_EN_STOP = frozenset((
    "a", "an", "the", "this", "that", "these", "those", "user", "user's", "users", "i", "me",
    "my", "we", "our", "you", "your", "he", "she", "it", "they", "them", "his", "her", "its",
    "their", "is", "are", "was", "were", "be", "been", "being", "am", "has", "have", "had",
    "do", "does", "did", "will", "would", "can", "could", "should", "may", "might", "must",
    "not", "no", "to", "of", "in", "on", "at", "for", "with", "from", "by", "about", "as",
    "into", "over", "under", "than", "and", "or", "but", "so", "very", "really", "just",
    "also", "often", "usually", "always", "currently", "recently", "now", "today", "yesterday",
    "tomorrow", "go", "goes", "went", "going", "gone", "get", "got", "like", "likes", "liked",
    "want", "wants", "wanted", "prefer", "prefers", "preferred", "plan", "plans", "planned",
    "planning", "think", "thinks", "thought", "feel", "feels", "felt", "love", "loves",
    "loved", "enjoy", "enjoys", "enjoyed", "need", "needs", "looking", "look", "looks",
    "interested", "more", "most", "less", "some", "any", "all", "much", "many", "one", "two",
))
# fmt: on
_ZH_SUBJECT = rx.compile(r"^(?:该用户|用户|我们|我|他们|她们|他|她)")
_ZH_LEAD = rx.compile(
    r"^(?:的)?(?:近期|最近|目前|现在|当前|正在|经常|常常|常|通常|一般|主要|更|很|非常|比较|不太|不)*"
    r"(?:在|有|是|想要|想|要|打算|计划|准备|喜欢|偏好|倾向|关注|参加|去|买|购买|寻找|找|看|做|养|用)?"
    r"(?:了|过)?(?:一只|一个|一双|一件|一家|一条|一种|一次)?"
)
_ZH_CUT = rx.compile(r"[，。；;,.!！?？、（）()\s]")
_LATIN_WORD = rx.compile(r"[A-Za-z][A-Za-z'\-]*")


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
) -> dict[str, TopicChoice]:
    """Choose a Topic for every fact (fact_id → TopicChoice).

    (a) taxonomy aliases in content, labels and entity names (the user's existing Topic
    names and aliases count as aliases too); (b) cosine of the fact's embedding to existing
    Topic embeddings ≥ ``threshold``; (c) the Topic of facts from the same session or
    within ``context_window`` that did match (``known`` adds already-filed facts of the
    user, e.g. the fact a correction supersedes; a shared slot family is a strong vote at
    any distance in time);
    (d) a new Topic named after the fact's label, entity, slot or main noun.
    """
    ordered = sorted(facts, key=lambda f: (f.time_start, f.fact_id))
    existing_by_name = {normalize_name(t.name): t for t in existing}
    taxonomy = taxonomy if taxonomy is not None else current_pack().taxonomy
    tax = taxonomy.extended([(t.name, t.aliases) for t in existing])

    scores = {f.fact_id: match_scores(_haystack(f), tax) for f in ordered}
    anchored: dict[str, tuple[str, Method, float]] = {}
    by_kind: set[str] = set()  # identity facts filed by kind alone: they cast no vote
    for f in ordered:
        best = _best(scores[f.fact_id])
        if best is not None:
            anchored[f.fact_id] = (best[0], "taxonomy", best[1])
        elif f.kind == "identity" and tax.get("identity") is not None:
            anchored[f.fact_id] = ("identity", "taxonomy", CUE)
            by_kind.add(f.fact_id)

    pending = [f for f in ordered if f.fact_id not in anchored]
    for fact_id, (name, sim) in _embedding_matches(pending, existing, embedder, threshold).items():
        anchored[fact_id] = (name, "embedding", sim)

    voters = [
        (f, anchored[f.fact_id][0])
        for f in ordered
        if f.fact_id in anchored and f.fact_id not in by_kind
    ]
    voters.extend((f, normalize_name(name)) for f, name in known)

    result: dict[str, TopicChoice] = {}
    for f in ordered:
        ctx = _context_topic(f, voters, context_window)
        own = anchored.get(f.fact_id)
        if own is not None and own[1] == "embedding":
            name, method, score = own
        elif ctx is not None and _context_wins(scores[f.fact_id], ctx[0], own):
            name, method, score = ctx[0], "context", ctx[1]
        elif own is not None:
            name, method, score = own
        elif ctx is not None:
            name, method, score = ctx[0], "context", ctx[1]
        else:
            name, method, score = derive_topic_name(f), "new", 0.0
        topic = existing_by_name.get(normalize_name(name))
        result[f.fact_id] = TopicChoice(
            name=topic.name if topic else name,
            is_new=topic is None,
            method=method,
            score=round(score, 4),
            topic_id=topic.topic_id if topic else None,
        )
    return result


def topic_embedding_text(
    name: str, aliases: Sequence[str] = (), taxonomy: Taxonomy | None = None
) -> str:
    """Text to embed for a Topic: its name, then its aliases (taxonomy ones included)."""
    entry = (taxonomy if taxonomy is not None else current_pack().taxonomy).get(name)
    terms: dict[str, None] = {}
    for term in (*(entry.aliases if entry else ()), *aliases):
        norm = normalize_name(term)
        if norm and norm != normalize_name(name):
            terms[norm] = None
    listed = list(terms)[:24]
    return f"{normalize_name(name)}: {', '.join(listed)}" if listed else normalize_name(name)


def derive_topic_name(fact: FactRecord) -> str:
    """A short lower-case name for a new Topic: label, entity, slot family or main noun."""
    for label in fact.labels:
        name = normalize_name(label.replace("_", " "))
        if name and label.lower() not in _GENERIC_LABELS and len(name) <= 40:
            return name
    for ent in fact.entities:
        if ent.type.upper() not in _VALUE_TYPES and ent.name.strip():
            return normalize_name(ent.normalized or ent.name)
    if fact.slot:
        return normalize_name(_family(fact.slot).replace("_", " "))
    noun = _zh_noun(fact.content) if fact.lang == "zh" else _en_noun(fact.content)
    return noun or FALLBACK_TOPIC


def _haystack(fact: FactRecord) -> str:
    parts = [fact.content, *fact.labels, *(e.name for e in fact.entities)]
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


def _context_wins(
    scores: Mapping[str, float], ctx: str, own: tuple[str, Method, float] | None
) -> bool:
    """Join the context's Topic when the fact also hints at it and its own match is weak:
    a cue of one Topic in a session about another Topic goes with the session."""
    hint = scores.get(ctx, 0.0)
    if hint <= 0 or (own is not None and own[0] == ctx):
        return False
    return own is None or hint >= own[2] or own[2] <= STRONG


def _embedding_matches(
    facts: Sequence[FactRecord],
    existing: Sequence[TopicRecord],
    embedder: Embedder | None,
    threshold: float,
) -> dict[str, tuple[str, float]]:
    if not facts or not existing:
        return {}
    topic_vecs = _topic_vectors(existing, embedder)
    if not topic_vecs:
        return {}
    fact_vecs = _fact_vectors(facts, embedder)
    out: dict[str, tuple[str, float]] = {}
    for f in facts:
        vec = fact_vecs.get(f.fact_id)
        if vec is None:
            continue
        best: tuple[str, float] | None = None
        for name, tvec in topic_vecs:
            sim = _cosine(vec, tvec)
            if sim >= threshold and (best is None or sim > best[1]):
                best = (normalize_name(name), sim)
        if best is not None:
            out[f.fact_id] = best
    return out


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


def _family(slot: str) -> str:
    return slot.split(":", 1)[0].strip().lower()


def _gap(a: FactRecord, b: FactRecord) -> timedelta:
    later = max(a.time_start, b.time_start)
    earlier_end = min(a.time_end, b.time_end)
    return max(later - earlier_end, timedelta(0))


def _en_noun(content: str) -> str:
    """Last two words of the first run of content words ("collects vintage fountain pens"
    → "fountain pens"); names and trailing -ed/-ly words are skipped."""
    runs: list[list[str]] = [[]]
    for word in _LATIN_WORD.findall(content):
        low = word.lower().strip("'")
        if low in _EN_STOP or len(low) < 2 or (word[0].isupper() and not word.isupper()):
            runs.append([])
        else:
            runs[-1].append(low)
    for run in runs:
        while run and run[-1].endswith(("ed", "ly")):
            run.pop()
        if run:
            return normalize_name(" ".join(run[-2:]))
    return ""


def _zh_noun(content: str) -> str:
    text = _ZH_SUBJECT.sub("", content.strip())
    text = _ZH_LEAD.sub("", text, count=1)
    head = _ZH_CUT.split(text, maxsplit=1)[0]
    if not head:
        return _en_noun(content)
    return normalize_name(head[:6])
