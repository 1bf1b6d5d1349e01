"""GraphQL types of the stored nodes: Message, Fact, Summary, Topic, WorldEntity (and a
Summary's Entity); nested fields load through the DataLoaders, one page at a time."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from api.context import Context
from api.limits import NESTED, SOURCE_FACTS, VERSIONS, window
from api.mapping import load_one, mapped
from core.wire import MessageFields
from service.records import (
    StoredEntity,
    StoredFact,
    StoredMessage,
    StoredSummary,
    StoredTopic,
)

PAGED = " At most `limit` items (GUMEM_MAX_LIST_SIZE at most), from `offset`."


@strawberry.type
class Entity:
    name: str
    type: str


@strawberry.type
class Message(MessageFields):
    id: strawberry.ID
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
        return mapped(Message, m, id=m.message_id)


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
        return await load_one(info.context.loaders.entity, self.subject_id, WorldEntity.from_record)

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
        return mapped(Fact, f, id=f.fact_id, subject_name=f.subject)


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
        return mapped(WorldEntity, e, id=e.entity_id)


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
        return mapped(
            Summary,
            s,
            id=s.summary_id,
            entities=[mapped(Entity, e) for e in s.entities],
            supersedes_ids=s.supersedes,
            superseded_by_ids=s.superseded_by,
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

    @staticmethod
    def from_record(t: StoredTopic) -> Topic:
        return mapped(Topic, t, id=t.topic_id)


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
