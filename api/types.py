"""GraphQL object types (separate from the graph models); nested fields use DataLoaders."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from api.context import Context
from api.limits import NESTED, SOURCE_FACTS, VERSIONS, window

PAGED = " At most `limit` items (GUMEM_MAX_LIST_SIZE at most), from `offset`."


@strawberry.type
class Entity:
    name: str
    type: str


@strawberry.type
class Message:
    id: strawberry.ID
    user_id: str
    session_id: str
    role: str
    content: str
    timestamp: datetime
    event_type: str
    page: str | None
    metadata: JSON
    lang: str | None
    status: str

    @strawberry.field(description="Facts drawn from this message." + PAGED)
    async def facts(
        self, info: Info[Context, None], limit: int = NESTED, offset: int = 0
    ) -> list[Fact]:
        lo = info.context.loaders
        ids = await lo.facts_of_message.load(str(self.id))
        return await _facts(info.context, ids, limit, offset)

    @staticmethod
    def from_row(row: dict[str, Any]) -> Message:
        return Message(
            id=strawberry.ID(row["message_id"]),
            user_id=row["user_id"],
            session_id=row["session_id"],
            role=row["role"],
            content=row["content"],
            timestamp=row["timestamp"],
            event_type=row.get("event_type") or "message",
            page=row.get("page"),
            metadata=json.loads(row.get("metadata_json") or "{}"),
            lang=row.get("lang"),
            status=row.get("status") or "pending",
        )


@strawberry.type
class Fact:
    id: strawberry.ID
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
    labels: list[str]
    topic: str | None
    anchors: list[str]
    source_message_ids: list[str]
    time_start: datetime | None
    time_end: datetime | None
    created_at: datetime | None
    entity_names: strawberry.Private[list[str]]
    sources: strawberry.Private[list[dict[str, Any]]]

    @strawberry.field
    def entities(self) -> list[str]:
        return self.entity_names

    @strawberry.field(description="The Messages this fact comes from (SOURCE edges)." + PAGED)
    def source_messages(
        self, info: Info[Context, None], limit: int = NESTED, offset: int = 0
    ) -> list[Message]:
        ctx = info.context
        rows = window(self.sources, limit, offset, ctx.memory.settings)
        ctx.charge(len(rows))
        return [Message.from_row(m) for m in rows]

    @strawberry.field(description="Summaries this fact supports, every version." + PAGED)
    async def summaries(
        self, info: Info[Context, None], limit: int = NESTED, offset: int = 0
    ) -> list[Summary]:
        lo = info.context.loaders
        ids = await lo.summaries_of_fact.load(str(self.id))
        return await _summaries(info.context, ids, limit, offset)

    @strawberry.field(description="Older facts on the same slot this one replaced." + PAGED)
    async def supersedes(
        self, info: Info[Context, None], limit: int = VERSIONS, offset: int = 0
    ) -> list[Fact]:
        lo = info.context.loaders
        v = await lo.fact_versions.load(str(self.id))
        return await _facts(info.context, v.get("supersedes", []), limit, offset)

    @strawberry.field(description="The newer fact that replaced this one, if any." + PAGED)
    async def superseded_by(
        self, info: Info[Context, None], limit: int = VERSIONS, offset: int = 0
    ) -> list[Fact]:
        lo = info.context.loaders
        v = await lo.fact_versions.load(str(self.id))
        return await _facts(info.context, v.get("superseded_by", []), limit, offset)

    @staticmethod
    def from_row(r: dict[str, Any]) -> Fact:
        return Fact(
            id=strawberry.ID(r["fact_id"]),
            user_id=r["user_id"],
            content=r["content"],
            kind=r["kind"],
            slot=r.get("slot"),
            value=r.get("value"),
            polarity=r.get("polarity") or "neutral",
            explicit=bool(r.get("explicit")),
            confidence=float(r.get("confidence") or 0.0),
            validity=r["validity"],
            status=r.get("status") or "pending",
            labels=list(r.get("labels") or []),
            topic=r.get("topic"),
            anchors=list(r.get("anchors") or []),
            source_message_ids=list(r.get("source_message_ids") or []),
            time_start=r.get("time_start"),
            time_end=r.get("time_end"),
            created_at=r.get("created_at"),
            entity_names=list(r.get("entities") or []),
            sources=list(r.get("sources") or []),
        )


@strawberry.type
class Summary:
    id: strawberry.ID
    user_id: str
    content: str
    topic: str
    kind: str | None
    confidence: float
    validity: str
    memory_status: str
    retrieval_boost: float
    decay_factor: float
    event_start: datetime | None
    event_end: datetime | None
    labels: list[str]
    anchors: list[str]
    evidence: JSON
    version: int
    created_at: datetime | None
    source_fact_ids: list[str]
    entities: list[Entity]
    supersedes_ids: list[str]
    superseded_by_ids: list[str]

    @strawberry.field(description="The Facts behind this summary (SUPPORTS edges)." + PAGED)
    async def source_facts(
        self, info: Info[Context, None], limit: int = SOURCE_FACTS, offset: int = 0
    ) -> list[Fact]:
        return await _facts(info.context, self.source_fact_ids, limit, offset)

    @strawberry.field(description="The older version(s) this summary replaced." + PAGED)
    async def supersedes(
        self, info: Info[Context, None], limit: int = VERSIONS, offset: int = 0
    ) -> list[Summary]:
        return await _summaries(info.context, self.supersedes_ids, limit, offset)

    @staticmethod
    def from_row(r: dict[str, Any]) -> Summary:
        return Summary(
            id=strawberry.ID(r["summary_id"]),
            user_id=r["user_id"],
            content=r["content"],
            topic=r["topic"],
            kind=r.get("kind"),
            confidence=float(r["confidence"]),
            validity=r["validity"],
            memory_status=r["memory_status"],
            retrieval_boost=float(r["retrieval_boost"]),
            decay_factor=float(r["decay_factor"]),
            event_start=r.get("event_start"),
            event_end=r.get("event_end"),
            labels=list(r.get("labels") or []),
            anchors=list(r.get("anchors") or []),
            evidence=json.loads(r.get("evidence_json") or "{}"),
            version=int(r.get("version") or 1),
            created_at=r.get("created_at"),
            source_fact_ids=list(r.get("source_facts") or []),
            entities=[Entity(name=e["name"], type=e["type"]) for e in r.get("entities") or []],
            supersedes_ids=list(r.get("supersedes") or []),
            superseded_by_ids=list(r.get("superseded_by") or []),
        )


@strawberry.type
class Topic:
    id: strawberry.ID
    name: str
    summary_count: int
    fact_count: int

    @strawberry.field(description="The topic's Summaries." + PAGED)
    async def summaries(
        self,
        info: Info[Context, None],
        include_inactive: bool = False,
        limit: int = NESTED,
        offset: int = 0,
    ) -> list[Summary]:
        lo = info.context.loaders
        loader = lo.all_summaries_of_topic if include_inactive else lo.active_summaries_of_topic
        ids = await loader.load(str(self.id))
        return await _summaries(info.context, ids, limit, offset)


async def _facts(ctx: Context, ids: list[str], limit: int, offset: int) -> list[Fact]:
    """One page of Facts by id, counted against the request's item budget."""
    page = window(ids, limit, offset, ctx.memory.settings)
    ctx.charge(len(page))
    return [Fact.from_row(r) for r in await ctx.loaders.many(ctx.loaders.fact, page)]


async def _summaries(ctx: Context, ids: list[str], limit: int, offset: int) -> list[Summary]:
    """One page of Summaries by id, counted against the request's item budget."""
    page = window(ids, limit, offset, ctx.memory.settings)
    ctx.charge(len(page))
    return [Summary.from_row(r) for r in await ctx.loaders.many(ctx.loaders.summary, page)]


@strawberry.type
class MemoryItem:
    id: strawberry.ID
    kind: str
    content: str
    score: float
    reason: str
    topic: str | None
    confidence: float | None
    timestamp: datetime | None
    source_fact_ids: list[str]
    source_message_ids: list[str]
    author: str | None = strawberry.field(
        default=None,
        description="Who a Message comes from: in the recent conversation the user, a "
        "speaker's name, assistant, or the event type such as click; for a ranked Message "
        "the name its metadata gives, if any.",
    )
    superseded: bool = strawberry.field(
        default=False, description="A Message carrying a value a later Fact superseded."
    )
    relevant_fact_ids: list[str] = strawberry.field(
        default_factory=list,
        description="For a Summary: its Facts that bear on this query (among the ranked "
        "evidence), best first.",
    )

    @strawberry.field(description="The Summary, when kind is summary.")
    async def summary(self, info: Info[Context, None]) -> Summary | None:
        if self.kind != "summary":
            return None
        row = await info.context.loaders.summary.load(str(self.id))
        return Summary.from_row(row) if row else None

    @strawberry.field(description="The Fact, when kind is fact.")
    async def fact(self, info: Info[Context, None]) -> Fact | None:
        if self.kind != "fact":
            return None
        row = await info.context.loaders.fact.load(str(self.id))
        return Fact.from_row(row) if row else None

    @strawberry.field(description="The Message, when kind is message.")
    async def message(self, info: Info[Context, None]) -> Message | None:
        if self.kind != "message":
            return None
        row = await info.context.loaders.message.load(str(self.id))
        return Message.from_row(row) if row else None


@strawberry.type
class MemoryContext:
    query: str
    short_term_context: list[MemoryItem]
    mid_term_context: list[MemoryItem]
    long_term_user_context: list[MemoryItem]
    formatted_context: str
    time_window_start: datetime | None
    time_window_end: datetime | None


@strawberry.type(description="The background worker, as /health reports it.")
class WorkerHealth:
    state: str  # running / restarting / stopped
    restarts: int
    last_error: str | None
    last_success: datetime | None
    pending_users: int | None


@strawberry.type
class Health:
    ok: bool
    neo4j: str
    worker: WorkerHealth | None = None


@strawberry.type(description="A Message whose processing failed: why, how often, when.")
class FailedMessage:
    id: strawberry.ID
    user_id: str
    session_id: str
    reason: str
    attempts: int
    last_attempt_at: datetime | None
    timestamp: datetime


@strawberry.input
class MessageInput:
    id: strawberry.ID
    user_id: str
    session_id: str
    role: str
    content: str
    timestamp: str
    event_type: str | None = "message"
    page: str | None = None
    metadata: JSON | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "userId": self.user_id,
            "sessionId": self.session_id,
            "role": self.role,
            "content": self.content,
            "timestamp": self.timestamp,
            "eventType": self.event_type,
            "page": self.page,
            "metadata": self.metadata,
        }


@strawberry.type
class ItemError:
    index: int | None
    field: str
    reason: str


@strawberry.type
class AddMessagesResult:
    accepted: list[strawberry.ID]
    duplicates: list[strawberry.ID]
    errors: list[ItemError]
    processed: int


@strawberry.type
class MaintenanceResult:
    examined: int
    deprioritized: int
    archived: int
