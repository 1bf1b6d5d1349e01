"""What the reads of graph/ return: stored nodes as typed records, decoded once, here.

Neo4j property names and JSON-encoded properties stop at this module: a record names its
fields for what they are, JSON is parsed, times are `datetime`s and lists are tuples.
The service hands these records on as they are (`service.records`); api/ and the MCP server
map them to what they show."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import MISSING, dataclass, fields
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

from core.inputs import MessageHead
from extract.types import EntityRef, MessageRecord

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

Row = Mapping[str, Any]  # one map as a query returns it (times already Python datetimes)
R = TypeVar("R", bound="DataclassInstance")


@dataclass(frozen=True)
class StoredMessage(MessageHead):
    """A Message or app event as stored."""

    event_type: str
    page: str | None
    metadata: dict[str, object]
    lang: str | None
    status: str  # pending / processed / failed
    ingested_at: datetime | None = None  # not read with a Fact's sources


@dataclass(frozen=True)
class MessageStatus:
    """Where one stored Message stands in processing (no content)."""

    message_id: str
    user_id: str
    status: str  # pending / processed / failed
    processed_at: datetime | None  # processed, or failed for good
    attempts: int  # failed attempts so far
    reason: str | None  # the last failed attempt's error kind, never content
    next_attempt_at: datetime | None  # pending after a failed attempt: its retry is due then


@dataclass(frozen=True)
class StoredFact:
    """A Fact with its source Messages (oldest first)."""

    fact_id: str
    user_id: str
    content: str
    kind: str
    slot: str | None
    value: str | None
    polarity: str
    explicit: bool
    confidence: float
    validity: str
    status: str
    labels: tuple[str, ...]
    entity_names: tuple[str, ...]
    source_message_ids: tuple[str, ...]
    lang: str | None
    topic: str | None
    anchors: tuple[str, ...]
    time_start: datetime | None
    time_end: datetime | None
    created_at: datetime | None
    sources: tuple[StoredMessage, ...]
    subject: str | None = None  # whom it is about (its Entity's name); None: the user
    subject_kind: str = "user"  # "user", or the Entity's kind (person, pet, place …)
    subject_id: str | None = None  # the Entity it is ABOUT, when read with it


@dataclass(frozen=True)
class StoredEntity:
    """An entity of the user's world: what Facts are ABOUT when not the user."""

    entity_id: str
    user_id: str
    name: str
    kind: str
    aliases: tuple[str, ...]
    created_at: datetime | None
    updated_at: datetime | None


@dataclass(frozen=True)
class StoredSummary:
    """One version of a topic Summary, with its entities and neighbouring versions."""

    summary_id: str
    user_id: str
    content: str
    topic: str
    kind: str | None
    source_fact_ids: tuple[str, ...]
    confidence: float
    event_start: datetime | None
    event_end: datetime | None
    labels: tuple[str, ...]
    decay_factor: float
    validity: str
    memory_status: str
    retrieval_boost: float
    evidence: dict[str, object]
    anchors: tuple[str, ...]
    created_at: datetime | None
    updated_at: datetime | None
    version: int
    lang: str | None
    entities: tuple[EntityRef, ...]
    supersedes: tuple[str, ...]  # ids of the older version(s) it replaced
    superseded_by: tuple[str, ...]  # ids of the newer version(s)


@dataclass(frozen=True)
class StoredTopic:
    topic_id: str
    name: str
    summary_count: int
    fact_count: int


@dataclass(frozen=True)
class FactVersions:
    """The Facts on the same slot one Fact replaced, and those that replaced it."""

    fact_id: str
    supersedes: tuple[str, ...]
    superseded_by: tuple[str, ...]


def _strs(value: object) -> tuple[str, ...]:
    return tuple(value) if isinstance(value, (list, tuple)) else ()


def _json(text: object) -> dict[str, object]:
    found = json.loads(text) if isinstance(text, str) and text else {}
    return found if isinstance(found, dict) else {}


@cache
def _absent(cls: type[DataclassInstance]) -> dict[str, Any]:
    """Each field of `cls` → its value when a row has none: its default, else None."""
    return {f.name: None if f.default is MISSING else f.default for f in fields(cls)}


def from_row(cls: type[R], row: Row, **decoded: Any) -> R:
    """A `cls` from `row`: each field named in `decoded` as given there, every other one
    the row's value under the field's name, as it is (`_absent` where the row has none)."""
    absent = _absent(cls)
    plain = {k: row.get(k, v) for k, v in absent.items() if k not in decoded}
    return cls(**plain, **decoded)


def stored_message(m: Row) -> StoredMessage:
    return from_row(
        StoredMessage,
        m,
        event_type=m.get("event_type") or "message",
        metadata=_json(m.get("metadata_json")),
        status=m.get("status") or "pending",
    )


def message_record(m: Row) -> MessageRecord:
    """A stored Message as extraction sees it (the pending queue's record)."""
    s = stored_message(m)
    return from_row(
        MessageRecord,
        vars(s),
        metadata=dict(s.metadata),
        lang="zh" if s.lang == "zh" else "en",
    )


def stored_status(r: Row) -> MessageStatus:
    return from_row(
        MessageStatus,
        r,
        status=r.get("status") or "pending",
        attempts=int(r.get("attempts") or 0),
    )


def stored_fact(f: Row, sources: list[Row]) -> StoredFact:
    return from_row(
        StoredFact,
        f,
        polarity=f.get("polarity") or "neutral",
        explicit=bool(f.get("explicit")),
        confidence=float(f.get("confidence") or 0.0),
        status=f.get("status") or "pending",
        labels=_strs(f.get("labels")),
        entity_names=_strs(f.get("entities")),
        source_message_ids=_strs(f.get("source_message_ids")),
        anchors=_strs(f.get("anchors")),
        sources=tuple(stored_message(m) for m in sources),
        subject_kind=f.get("subject_kind") or ("user" if f.get("subject") is None else "thing"),
    )


def stored_entity(e: Row) -> StoredEntity:
    return from_row(StoredEntity, e, kind=e.get("kind") or "thing", aliases=_strs(e.get("aliases")))


def stored_summary(s: Row) -> StoredSummary:
    return from_row(
        StoredSummary,
        s,
        source_fact_ids=_strs(s.get("source_facts")),
        confidence=float(s["confidence"]),
        labels=_strs(s.get("labels")),
        decay_factor=float(s["decay_factor"]),
        retrieval_boost=float(s["retrieval_boost"]),
        evidence=_json(s.get("evidence_json")),
        anchors=_strs(s.get("anchors")),
        version=int(s.get("version") or 1),
        entities=tuple(
            EntityRef(e["name"], e["type"], e.get("normalized") or "")
            for e in s.get("entities") or ()
        ),
        supersedes=_strs(s.get("supersedes")),
        superseded_by=_strs(s.get("superseded_by")),
    )


def stored_topic(t: Row) -> StoredTopic:
    return StoredTopic(
        topic_id=t["topic_id"],
        name=t["name"],
        summary_count=t.get("summary_count") or 0,
        fact_count=t.get("fact_count") or 0,
    )


@dataclass(frozen=True)
class AffectedSummary:
    """A Summary version a Message's deletion touches (supported by or naming it)."""

    summary_id: str
    validity: str  # active / superseded / retired
    topic: str


@dataclass(frozen=True)
class TopicUsage:
    """One Topic's Facts and Summaries left after a deletion."""

    topic_id: str
    name: str
    facts: int
    summaries: int


@dataclass(frozen=True)
class DecayState:
    """What maintenance reads of an active Summary to recompute its weight."""

    summary_id: str
    decay_factor: float
    event_end: datetime
    retrieval_boost: float
    memory_status: str


@dataclass(frozen=True)
class StatusChange:
    """What maintenance writes back: a Summary's new status and weight."""

    summary_id: str
    status: str
    weight: float
