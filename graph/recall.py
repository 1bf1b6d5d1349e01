"""Recall's read: one round trip for the candidates, with the candidate Facts in full and
the corrections the candidate Messages carry.

The candidates leave here as typed records (`Candidates`), their times and metadata
decoded once; `service.recall` ranks them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from graph.db import Database, instant
from graph.entities import query_form
from graph.ingest import message_uid, scope_token
from graph.queries import user_rows
from graph.reads import fact_of_row
from graph.records import StoredFact

_LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
RECALLED_STATUSES = ["active", "deprioritized"]

# Lucene refuses a query of more than 1,024 clauses (IndexSearcher.maxClauseCount): one per
# token the `cjk` analyzer makes of the text, in each of the 3 fields searched. The text
# searched is cut at this many tokens, counted from above (`bounded_text`).
MAX_TERMS = 256
_PIECES = re.compile(r"\w+|[^\w\s]")  # a word run, or one other non-blank character
# Han, kana, Hangul (its jamo too) and the planes above: a token per character at worst
# (the analyzer makes a bigram of every two); emoji and symbols are one character each
_WIDE = re.compile(r"[\u1100-\u11ff\u2e80-\U0010ffff]")
_MAX_TOKEN = 255  # Lucene's StandardTokenizer splits a longer word into pieces this long


def bounded_text(text: str, max_terms: int = MAX_TERMS) -> str:
    """`text` cut where its full-text tokens would pass `max_terms`, unchanged when they
    stay within. Counted from above: a character of a wide run (Han, kana, Hangul, emoji)
    or a symbol is one token, another script's word one per 255 characters."""
    used = 0
    for m in _PIECES.finditer(text):
        piece = m.group()
        wide = _WIDE.search(piece) is not None
        cost = len(piece) if wide else len(piece) // _MAX_TOKEN + 1
        if used + cost > max_terms:
            left = max_terms - used  # a long run is cut inside, not dropped
            keep = left if wide else max(0, left * _MAX_TOKEN - 1)
            return text[: m.start() + keep]
        used += cost
    return text


def lucene_query(text: str, scope: str) -> str | None:
    """A full-text query for `text` restricted to one user's scope token.

    The text is searched in the content, a Summary's topic and a Message's author. It is
    bounded (`bounded_text`: a long query's first `MAX_TERMS` tokens), every Lucene
    operator character is escaped and the text is lower-cased (so AND / OR / NOT are
    words, not operators); None when nothing searchable is left.
    """
    cleaned = _LUCENE_SPECIAL.sub(r"\\\1", bounded_text(text).lower()).strip()
    if not re.search(r"\w", cleaned):
        return None
    return f"+scope:{scope} +(content:({cleaned}) OR topic:({cleaned}) OR author:({cleaned}))"


@dataclass(frozen=True)
class SummaryCandidate:
    """A recallable Summary with its cosine to the query (`sv`) and its Topic's (`tv`)."""

    summary_id: str
    content: str
    topic: str | None
    kind: str
    confidence: float
    retrieval_boost: float | None
    memory_status: str | None
    source_facts: tuple[str, ...]
    event_start: datetime | None
    event_end: datetime | None
    sv: float = 0.0
    tv: float = 0.0
    about: str | None = None  # the person of the user's world its Facts speak of


@dataclass(frozen=True)
class Hit:
    """A full-text hit on a Summary."""

    id: str
    score: float


@dataclass(frozen=True)
class FactCandidate:
    """A Fact found by cosine (`score` is the cosine) or full text (the Lucene score), with
    the Messages it cites and their sessions."""

    id: str
    score: float
    time_start: datetime | None
    time_end: datetime | None
    sources: tuple[str, ...] = ()
    sessions: tuple[str, ...] = ()
    about: str | None = None  # the entity named in the query it is about (entity_facts)


@dataclass(frozen=True)
class MessageCandidate:
    """A Message found by cosine or full text (`score`: that similarity), or one of the
    recent turns (`score` 0). `metadata` is the client's, decoded; `sourced`: a Fact cites it;
    `rejected`: extraction found no memory in it (`rejected_reason` says why, when known)."""

    message_id: str
    content: str
    timestamp: datetime
    role: str | None = "user"
    event_type: str | None = None
    session_id: str | None = None
    metadata: dict[str, object] = field(default_factory=dict)
    rejected: bool = False
    rejected_reason: str | None = None
    sourced: bool = False
    score: float = 0.0


@dataclass(frozen=True)
class Candidates:
    """What recall ranks, read in one round trip. `details` holds each candidate Fact as
    read (`facts()` decodes the few recall shows, not all of them)."""

    summaries: tuple[SummaryCandidate, ...] = ()
    summary_hits: tuple[Hit, ...] = ()
    fact_hits: tuple[FactCandidate, ...] = ()
    fact_near: tuple[FactCandidate, ...] = ()
    messages: tuple[MessageCandidate, ...] = ()
    message_hits: tuple[MessageCandidate, ...] = ()
    recent: tuple[MessageCandidate, ...] = ()
    details: Mapping[str, Mapping[str, Any]] = field(default_factory=dict, repr=False)
    # Message id -> (fact id, content) of the active Facts that replaced what it said, for
    # each candidate Message that carries a superseded value (empty: nothing active
    # replaced it, e.g. the correction was deleted)
    corrected: Mapping[str, tuple[tuple[str, str], ...]] = field(default_factory=dict)
    # the Facts about the user's world entities the query names, closest first (`score`:
    # the cosine, `about`: the entity's name)
    entity_facts: tuple[FactCandidate, ...] = ()

    def facts(self, ids: Iterable[str]) -> dict[str, StoredFact]:
        """The candidate Facts among `ids`, with their sources (an id not among the
        candidates is left out)."""
        return {i: fact_of_row(d) for i in ids if (d := self.details.get(i)) is not None}


def _metadata(raw: str | None) -> dict[str, object]:
    try:
        meta = json.loads(raw or "{}")
    except ValueError:
        return {}
    return meta if isinstance(meta, dict) else {}


def _summary(r: dict[str, Any]) -> SummaryCandidate:
    return SummaryCandidate(
        summary_id=r["summary_id"],
        content=r["content"] or "",
        topic=r["topic"],
        kind=r["kind"] or "general",
        confidence=float(r["confidence"] or 0.0),
        retrieval_boost=r["retrieval_boost"],
        memory_status=r["memory_status"],
        source_facts=tuple(r["source_facts"] or ()),
        event_start=instant(r["event_start"]),
        event_end=instant(r["event_end"]),
        sv=float(r["sv"] or 0.0),
        tv=float(r["tv"] or 0.0),
        about=r.get("about"),
    )


def _fact(r: dict[str, Any], score: str) -> FactCandidate:
    return FactCandidate(
        id=r["id"],
        score=float(r[score]),
        time_start=instant(r["time_start"]),
        time_end=instant(r["time_end"]),
        sources=tuple(r["sources"] or ()),
        sessions=tuple(s for s in r["sessions"] or () if s),
        about=r.get("about"),
    )


def _message(r: dict[str, Any], score: str | None) -> MessageCandidate:
    ts = instant(r["timestamp"])
    assert ts is not None  # every Message has its time
    return MessageCandidate(
        message_id=r["message_id"],
        content=r["content"] or "",
        timestamp=ts,
        role=r["role"],
        event_type=r["event_type"],
        session_id=r["session_id"],
        metadata=_metadata(r["metadata_json"]),
        rejected=bool(r.get("rejected")),
        rejected_reason=r.get("rejected_reason"),
        sourced=bool(r.get("sourced")),
        score=float(r[score]) if score else 0.0,
    )


def decode(row: dict[str, Any]) -> Candidates:
    """The recall query's one row as records."""
    return Candidates(
        summaries=tuple(_summary(r) for r in row["summaries"]),
        summary_hits=tuple(Hit(h["id"], float(h["score"])) for h in row["summary_hits"] or ()),
        fact_hits=tuple(_fact(r, "score") for r in row["fact_hits"] or ()),
        fact_near=tuple(_fact(r, "fv") for r in row["fact_near"]),
        messages=tuple(_message(r, "mv") for r in row["messages"]),
        message_hits=tuple(_message(r, "score") for r in row["message_hits"] or ()),
        recent=tuple(_message(r, None) for r in row["recent"]),
        details={d["fact"]["fact_id"]: d for d in row.get("facts") or ()},
        corrected={
            r["message_id"]: tuple((x["fact_id"], x["content"]) for x in r["replaced_by"])
            for r in row.get("corrected") or ()
        },
        entity_facts=tuple(_fact(r, "fv") for r in row.get("entity_facts") or ()),
    )


async def candidates(
    db: Database,
    tenant: str,
    user_id: str,
    text: str,
    qvec: list[float],
    now: datetime,
    session_id: str | None,
    fact_k: int = 30,
    message_k: int = 30,
    recent_k: int = 6,
    entity_k: int = 10,
    recent_since: datetime | None = None,
    statuses: list[str] | None = None,
    as_of: datetime | None = None,
) -> Candidates:
    """Recall's candidates; with `as_of`, as the memory stood at that time (Messages up to
    it, the Facts valid at it and the Summary versions built from those only)."""
    scope = scope_token(tenant, user_id)
    rows = await user_rows(
        db,
        "recall",
        tenant,
        user_id,
        qvec=qvec,
        now=now,
        lucene=lucene_query(text, scope),
        session_id=session_id,
        fact_k=fact_k,
        message_k=message_k,
        recent_k=recent_k,
        recent_since=recent_since,
        statuses=statuses or RECALLED_STATUSES,
        as_of=as_of,
        uid_prefix=message_uid(tenant, ""),
        qwords=query_form(text),
        entity_k=entity_k,
    )
    return decode(rows[0])
