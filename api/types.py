"""GraphQL types of the stored nodes: Message, Fact, Summary, Topic, WorldEntity (and a
Summary's Entity); nested fields load through the DataLoaders, one page at a time."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from api.context import Context
from api.limits import NESTED, SOURCE_FACTS, VERSIONS, window
from service.records import StoredEntity, StoredFact, StoredMessage, StoredSummary

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
