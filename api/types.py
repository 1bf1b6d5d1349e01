"""GraphQL object types (separate from the graph models); nested fields use DataLoaders."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from api.context import Context
from api.limits import NESTED, SOURCE_FACTS, VERSIONS, window
from core.inputs import MessageItem
from service.records import (
    Processing,
    StoredEntity,
    StoredFact,
    StoredMessage,
    StoredSummary,
)

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
    def from_record(m: StoredMessage) -> Message:
        return Message(
            id=strawberry.ID(m.message_id),
            user_id=m.user_id,
            session_id=m.session_id,
            role=m.role,
            content=m.content,
            timestamp=m.timestamp,
            event_type=m.event_type,
            page=m.page,
            metadata=JSON(m.metadata),
            lang=m.lang,
            status=m.status,
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
    sources: strawberry.Private[list[StoredMessage]]
    subject_name: str | None = strawberry.field(
        description='Whom or what this fact is about, in the user\'s words ("father", '
        '"室友小陈"); null: the user.'
    )
    subject_kind: str = strawberry.field(
        description="user, or the kind of its subject: person, pet, event, place, org, item"
        " or thing."
    )
    subject_id: strawberry.Private[str | None]

    @strawberry.field(
        description="The entity of the user's world this fact is about (ABOUT edge); null:"
        " the fact is about the user."
    )
    async def subject(self, info: Info[Context, None]) -> WorldEntity | None:
        if self.subject_id is None:
            return None
        found = await info.context.loaders.entity.load(self.subject_id)
        return WorldEntity.from_record(found) if found else None

    @strawberry.field
    def entities(self) -> list[str]:
        return self.entity_names

    @strawberry.field(description="The Messages this fact comes from (SOURCE edges)." + PAGED)
    def source_messages(
        self, info: Info[Context, None], limit: int = NESTED, offset: int = 0
    ) -> list[Message]:
        ctx = info.context
        page = window(self.sources, limit, offset, ctx.memory.settings)
        ctx.charge(len(page))
        return [Message.from_record(m) for m in page]

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
        return await _facts(info.context, list(v.supersedes) if v else [], limit, offset)

    @strawberry.field(description="The newer fact that replaced this one, if any." + PAGED)
    async def superseded_by(
        self, info: Info[Context, None], limit: int = VERSIONS, offset: int = 0
    ) -> list[Fact]:
        lo = info.context.loaders
        v = await lo.fact_versions.load(str(self.id))
        return await _facts(info.context, list(v.superseded_by) if v else [], limit, offset)

    @staticmethod
    def from_record(f: StoredFact) -> Fact:
        return Fact(
            id=strawberry.ID(f.fact_id),
            user_id=f.user_id,
            content=f.content,
            kind=f.kind,
            slot=f.slot,
            value=f.value,
            polarity=f.polarity,
            explicit=f.explicit,
            confidence=f.confidence,
            validity=f.validity,
            status=f.status,
            labels=list(f.labels),
            topic=f.topic,
            anchors=list(f.anchors),
            source_message_ids=list(f.source_message_ids),
            time_start=f.time_start,
            time_end=f.time_end,
            created_at=f.created_at,
            entity_names=list(f.entity_names),
            sources=list(f.sources),
            subject_name=f.subject,
            subject_kind=f.subject_kind,
            subject_id=f.subject_id,
        )


@strawberry.type(
    description="An entity of the user's world: a person (by relationship and/or name), pet,"
    " event, place, organisation or item that Facts are about."
)
class WorldEntity:
    id: strawberry.ID
    user_id: str
    name: str = strawberry.field(description="Its name as the user first called it.")
    kind: str = strawberry.field(description="person, pet, event, place, org, item or thing.")
    aliases: list[str] = strawberry.field(
        description="Every name it goes by (its name included): recall finds it by these."
    )
    created_at: datetime | None
    updated_at: datetime | None

    @strawberry.field(description="The active Facts about it, newest first." + PAGED)
    async def facts(
        self, info: Info[Context, None], limit: int = NESTED, offset: int = 0
    ) -> list[Fact]:
        ids = await info.context.loaders.facts_of_entity.load(str(self.id))
        return await _facts(info.context, ids, limit, offset)

    @staticmethod
    def from_record(e: StoredEntity) -> WorldEntity:
        return WorldEntity(
            id=strawberry.ID(e.entity_id),
            user_id=e.user_id,
            name=e.name,
            kind=e.kind,
            aliases=list(e.aliases),
            created_at=e.created_at,
            updated_at=e.updated_at,
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
    def from_record(s: StoredSummary) -> Summary:
        return Summary(
            id=strawberry.ID(s.summary_id),
            user_id=s.user_id,
            content=s.content,
            topic=s.topic,
            kind=s.kind,
            confidence=s.confidence,
            validity=s.validity,
            memory_status=s.memory_status,
            retrieval_boost=s.retrieval_boost,
            decay_factor=s.decay_factor,
            event_start=s.event_start,
            event_end=s.event_end,
            labels=list(s.labels),
            anchors=list(s.anchors),
            evidence=JSON(s.evidence),
            version=s.version,
            created_at=s.created_at,
            source_fact_ids=list(s.source_fact_ids),
            entities=[Entity(name=e.name, type=e.type) for e in s.entities],
            supersedes_ids=list(s.supersedes),
            superseded_by_ids=list(s.superseded_by),
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
    return [Fact.from_record(f) for f in await ctx.loaders.many(ctx.loaders.fact, page)]


async def _summaries(ctx: Context, ids: list[str], limit: int, offset: int) -> list[Summary]:
    """One page of Summaries by id, counted against the request's item budget."""
    page = window(ids, limit, offset, ctx.memory.settings)
    ctx.charge(len(page))
    return [Summary.from_record(s) for s in await ctx.loaders.many(ctx.loaders.summary, page)]


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
        found = await info.context.loaders.summary.load(str(self.id))
        return Summary.from_record(found) if found else None

    @strawberry.field(description="The Fact, when kind is fact.")
    async def fact(self, info: Info[Context, None]) -> Fact | None:
        if self.kind != "fact":
            return None
        found = await info.context.loaders.fact.load(str(self.id))
        return Fact.from_record(found) if found else None

    @strawberry.field(description="The Message, when kind is message.")
    async def message(self, info: Info[Context, None]) -> Message | None:
        if self.kind != "message":
            return None
        found = await info.context.loaders.message.load(str(self.id))
        return Message.from_record(found) if found else None


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

    def to_item(self) -> MessageItem:
        return MessageItem(
            id=str(self.id), user_id=self.user_id, session_id=self.session_id, role=self.role,
            content=self.content, timestamp=self.timestamp, event_type=self.event_type,
            page=self.page, metadata=self.metadata,
        )  # fmt: skip


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
    timed_out: bool = strawberry.field(
        default=False,
        description="With wait (async mode): some of the batch's Messages were still pending"
        " when the wait ended (its bound passed, or Neo4j stopped answering); ask"
        " processing(ids) later. Otherwise false.",
    )


@strawberry.type(description="Where one asked Message stands in processing (no content).")
class MessageProcessing:
    id: strawberry.ID
    status: str = strawberry.field(
        description="pending, processed or failed; not_found when there is no such Message"
        " of this tenant (of userId, when given)."
    )
    user_id: str | None
    processed_at: datetime | None = strawberry.field(
        description="When it was processed, or failed for good; null while pending."
    )
    attempts: int = strawberry.field(description="Failed processing attempts so far.")
    reason: str | None = strawberry.field(
        description="The last failed attempt's error kind (never content)."
    )
    next_attempt_at: datetime | None = strawberry.field(
        description="Pending after a failed attempt: when it is tried again."
    )

    @staticmethod
    def from_record(p: Processing) -> MessageProcessing:
        m = p.found
        if m is None:
            return MessageProcessing(
                id=strawberry.ID(p.message_id),
                status="not_found",
                user_id=None,
                processed_at=None,
                attempts=0,
                reason=None,
                next_attempt_at=None,
            )
        return MessageProcessing(
            id=strawberry.ID(m.message_id),
            status=m.status,
            user_id=m.user_id,
            processed_at=m.processed_at,
            attempts=m.attempts,
            reason=m.reason,
            next_attempt_at=m.next_attempt_at,
        )


@strawberry.type
class MaintenanceResult:
    examined: int
    deprioritized: int
    archived: int
