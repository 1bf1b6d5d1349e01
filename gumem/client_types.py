"""Typed results of the Python clients: dataclasses mirroring the GraphQL types (schema.graphql),
built from a response's camelCase JSON, plus the chat-turn helper."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from core.records import ProvenanceEdge
from core.wire import ImpactFields, ItemFields, MessageFields


def _dt(value: Any) -> datetime | None:
    return datetime.fromisoformat(value) if isinstance(value, str) and value else None


@dataclass(frozen=True)
class ItemError:
    index: int | None
    field: str
    reason: str


@dataclass(frozen=True)
class AddMessagesResult:
    accepted: list[str]
    duplicates: list[str]
    processed: int
    errors: list[ItemError]

    @staticmethod
    def from_json(d: Mapping[str, Any]) -> AddMessagesResult:
        return AddMessagesResult(
            accepted=list(d.get("accepted") or []),
            duplicates=list(d.get("duplicates") or []),
            processed=int(d.get("processed") or 0),
            errors=[ItemError(e.get("index"), e["field"], e["reason"]) for e in d["errors"]],
        )


@dataclass
class MemoryItem(ItemFields):
    author: str | None = None
    superseded: bool = False
    source_fact_ids: list[str] = field(default_factory=list)
    source_message_ids: list[str] = field(default_factory=list)

    @staticmethod
    def from_json(d: Mapping[str, Any]) -> MemoryItem:
        return MemoryItem(
            id=d["id"],
            kind=d["kind"],
            content=d["content"],
            score=float(d["score"]),
            reason=d["reason"],
            topic=d.get("topic"),
            confidence=d.get("confidence"),
            timestamp=_dt(d.get("timestamp")),
            author=d.get("author"),
            superseded=bool(d.get("superseded")),
            source_fact_ids=list(d.get("sourceFactIds") or []),
            source_message_ids=list(d.get("sourceMessageIds") or []),
        )


@dataclass(frozen=True)
class MemoryContext:
    query: str
    formatted_context: str
    short_term_context: list[MemoryItem]
    mid_term_context: list[MemoryItem]
    long_term_user_context: list[MemoryItem]
    time_window_start: datetime | None
    time_window_end: datetime | None

    @property
    def items(self) -> list[MemoryItem]:
        return [*self.short_term_context, *self.mid_term_context, *self.long_term_user_context]

    @property
    def ids(self) -> list[str]:
        return [i.id for i in self.items]

    @staticmethod
    def from_json(d: Mapping[str, Any]) -> MemoryContext:
        def items(key: str) -> list[MemoryItem]:
            return [MemoryItem.from_json(i) for i in d.get(key) or []]

        return MemoryContext(
            query=d["query"],
            formatted_context=d["formattedContext"],
            short_term_context=items("shortTermContext"),
            mid_term_context=items("midTermContext"),
            long_term_user_context=items("longTermUserContext"),
            time_window_start=_dt(d.get("timeWindowStart")),
            time_window_end=_dt(d.get("timeWindowEnd")),
        )


@dataclass(frozen=True)
class TraceNode:
    id: str
    label: str
    properties: dict[str, Any]


class TraceEdge(ProvenanceEdge):
    """An edge of a Trace: the server's provenance edge, as the client reads it."""


@dataclass(frozen=True)
class Trace:
    root_id: str
    root_kind: str
    nodes: list[TraceNode]
    edges: list[TraceEdge]
    cypher: str
    params: dict[str, Any]
    truncated: bool

    @staticmethod
    def from_json(d: Mapping[str, Any]) -> Trace:
        return Trace(
            root_id=d["rootId"],
            root_kind=d["rootKind"],
            nodes=[TraceNode(n["id"], n["label"], dict(n["properties"])) for n in d["nodes"]],
            edges=[TraceEdge(e["source"], e["type"], e["target"]) for e in d["edges"]],
            cypher=d["cypher"],
            params=dict(d.get("params") or {}),
            truncated=bool(d.get("truncated")),
        )


@dataclass(frozen=True)
class Topic:
    id: str
    name: str
    summary_count: int
    fact_count: int

    @staticmethod
    def from_json(d: Mapping[str, Any]) -> Topic:
        return Topic(d["id"], d["name"], int(d["summaryCount"]), int(d["factCount"]))


@dataclass
class Message(MessageFields):
    metadata: dict[str, Any]
    status: str

    @staticmethod
    def from_json(d: Mapping[str, Any]) -> Message:
        ts = _dt(d["timestamp"])
        assert ts is not None
        return Message(
            id=d["id"],
            user_id=d["userId"],
            session_id=d["sessionId"],
            role=d["role"],
            content=d["content"],
            timestamp=ts,
            event_type=d["eventType"],
            page=d.get("page"),
            metadata=dict(d.get("metadata") or {}),
            status=d["status"],
        )


@dataclass
class DeletionImpact(ImpactFields):
    @staticmethod
    def from_json(d: Mapping[str, Any]) -> DeletionImpact:
        return DeletionImpact(
            message_id=d["messageId"],
            removed_facts=list(d["removedFacts"]),
            kept_facts=list(d["keptFacts"]),
            restored_facts=list(d["restoredFacts"]),
            rebuilt_summaries=list(d["rebuiltSummaries"]),
            retired_summaries=list(d["retiredSummaries"]),
            purged_versions=list(d["purgedVersions"]),
            new_summaries=list(d["newSummaries"]),
            orphan_entities=list(d["orphanEntities"]),
            orphan_topics=list(d["orphanTopics"]),
        )


@dataclass(frozen=True)
class DeletionReport:
    impact: DeletionImpact
    counts: dict[str, int]


@dataclass(frozen=True)
class ForgetReport:
    user_id: str
    counts: dict[str, int]
    remaining: int


CHAT_ROLES = {"user": "user", "human": "user", "assistant": "assistant", "ai": "assistant"}


def turn_id(user_id: str, session_id: str, index: int, role: str, content: str) -> str:
    """A stable id for a turn without one: sending the same transcript again is a no-op."""
    digest = hashlib.sha256(
        "\x1f".join((user_id, session_id, str(index), role, content)).encode()
    ).hexdigest()
    return f"t:{digest[:24]}"


def turns_to_messages(
    turns: Iterable[Mapping[str, Any]],
    user_id: str,
    session_id: str,
    start: datetime | None = None,
    step: timedelta = timedelta(seconds=1),
) -> list[dict[str, Any]]:
    """An agent's chat turns (`[{"role": "user"|"assistant", "content": ...}]`, OpenAI
    style; "human"/"ai" too) as addMessages input. A turn's own `id` and `timestamp` are
    kept; otherwise the id is derived from the user, session, position and text (resending
    is idempotent) and turns are `step` apart from `start` (default: now, going back so the
    last turn is now). System and tool turns are not the user's memory and are left out;
    content given as a list of parts keeps its text parts."""
    picked: list[tuple[int, str, str, Mapping[str, Any]]] = []
    for i, t in enumerate(turns):
        role = CHAT_ROLES.get(str(t.get("role", "")).lower())
        content = _text_of(t.get("content"))
        if role is None or not content.strip():
            continue
        picked.append((i, role, content, t))
    if start is None:
        start = datetime.now(UTC) - step * max(len(picked) - 1, 0)
    out: list[dict[str, Any]] = []
    for n, (i, role, content, t) in enumerate(picked):
        ts = t.get("timestamp") or (start + step * n).isoformat()
        out.append(
            {
                "id": str(t.get("id") or turn_id(user_id, session_id, i, role, content)),
                "userId": user_id,
                "sessionId": session_id,
                "role": role,
                "content": content,
                "timestamp": ts if isinstance(ts, str) else ts.isoformat(),
                "eventType": "message",
                "page": "chat",
                "metadata": {},
            }
        )
    return out


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # [{"type": "text", "text": ...}, {"type": "image_url"...}]
        parts = [p.get("text", "") for p in content if isinstance(p, dict)]
        return "\n".join(p for p in parts if isinstance(p, str) and p)
    return ""
