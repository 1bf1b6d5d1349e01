"""The GraphQL Query root: recall (`memory`), the stored nodes by id or by user, a page at a
time, provenance (`trace`), processing status, failures and the audit log."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.types import Info

from api.audit_types import AuditRecord, DeletionImpact, Trace
from api.context import Context
from api.mapping import load_one, mapped
from api.ops_types import FailedMessage, Health, MessageProcessing, WorkerHealth
from api.recall_types import MemoryContext
from api.types import Fact, Message, Summary, Topic, WorldEntity
from core.inputs import Page, Validity
from service import erasure

MAX_PAGE = 200


@strawberry.type
class Query:
    @strawberry.field
    async def health(self, info: Info[Context, None]) -> Health:
        memory = info.context.memory
        w = memory.pipeline.status if memory.pipeline is not None else None
        worker = mapped(WorkerHealth, w) if w is not None else None
        return Health(ok=True, neo4j=await memory.server_version(), worker=worker)

    @strawberry.field(description="Recall: the context an agent needs for this query.")
    async def memory(
        self,
        info: Info[Context, None],
        user_id: str,
        query: str,
        session_id: str | None = None,
        now: datetime | None = None,
        limit: int | None = None,
        as_of: Annotated[
            datetime | None,
            strawberry.argument(
                description="Recall the memory as it stood at this time (with a time zone):"
                " Messages up to it, the Facts valid then, the Summary versions built from"
                " them. Default: now."
            ),
        ] = None,
    ) -> MemoryContext:
        ctx = info.context
        r = await ctx.memory.recall(
            ctx.tenant,
            user_id,
            query,
            session_id=session_id,
            now=now,
            limit=limit,
            as_of=as_of,
        )
        return MemoryContext.from_recall(r)

    @strawberry.field
    async def topics(
        self, info: Info[Context, None], user_id: str, limit: int = 50, offset: int = 0
    ) -> list[Topic]:
        ctx = info.context
        found = await ctx.memory.topics(ctx.tenant, user_id, Page.of(limit, offset, MAX_PAGE))
        ctx.charge(len(found))
        return [Topic.from_record(t) for t in found]

    @strawberry.field(
        description="The entities of a user's world that Facts are about (people, pets,"
        " events, places, organisations, items), the latest touched first." + " At most"
        " `limit` items (GUMEM_MAX_LIST_SIZE at most), from `offset`."
    )
    async def entities(
        self, info: Info[Context, None], user_id: str, limit: int = 50, offset: int = 0
    ) -> list[WorldEntity]:
        ctx = info.context
        page = Page.of(limit, offset, ctx.memory.settings.max_list_size)
        found = await ctx.memory.entities(ctx.tenant, user_id, page)
        ctx.charge(len(found))
        return [WorldEntity.from_record(e) for e in found]

    @strawberry.field(description="One entity of a user's world by id.")
    async def entity(self, info: Info[Context, None], id: strawberry.ID) -> WorldEntity | None:
        return await load_one(info.context.loaders.entity, str(id), WorldEntity.from_record)

    @strawberry.field
    async def facts(
        self,
        info: Info[Context, None],
        user_id: str,
        include_inactive: bool = False,
        limit: int = 50,
        offset: int = 0,
        as_of: Annotated[
            datetime | None,
            strawberry.argument(
                description="Only the Facts valid at this time (with a time zone), superseded"
                " later or not; includeInactive is then ignored. Default: none."
            ),
        ] = None,
    ) -> list[Fact]:
        ctx = info.context
        page = Page.of(limit, offset, MAX_PAGE)
        valid = Validity.of(include_inactive, as_of)
        ids = await ctx.memory.fact_ids(ctx.tenant, user_id, page, valid)
        ctx.charge(len(ids))
        return [Fact.from_record(f) for f in await ctx.loaders.many(ctx.loaders.fact, ids)]

    @strawberry.field
    async def fact(self, info: Info[Context, None], id: strawberry.ID) -> Fact | None:
        return await load_one(info.context.loaders.fact, str(id), Fact.from_record)

    @strawberry.field
    async def summary(self, info: Info[Context, None], id: strawberry.ID) -> Summary | None:
        return await load_one(info.context.loaders.summary, str(id), Summary.from_record)

    @strawberry.field
    async def message(self, info: Info[Context, None], id: strawberry.ID) -> Message | None:
        return await load_one(info.context.loaders.message, str(id), Message.from_record)

    @strawberry.field(
        description=(
            "A user's Messages in time order, oldest first: one session's (the chat"
            " history) or all of them. Deleted Messages are gone."
        )
    )
    async def messages(
        self,
        info: Info[Context, None],
        user_id: str,
        session_id: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[Message]:
        ctx = info.context
        page = Page.of(limit, offset, MAX_PAGE)
        found = await ctx.memory.messages(ctx.tenant, user_id, session_id, page)
        ctx.charge(len(found))
        return [Message.from_record(m) for m in found]

    @strawberry.field(description="Provenance of a Summary, Fact or Message, both ways.")
    async def trace(self, info: Info[Context, None], id: strawberry.ID) -> Trace | None:
        ctx = info.context
        t = await ctx.memory.trace(ctx.tenant, str(id))
        return Trace.from_data(t) if t else None

    @strawberry.field(description="Dry run: what deleteMessage(id) would remove or rebuild.")
    async def deletion_impact(
        self, info: Info[Context, None], message_id: strawberry.ID
    ) -> DeletionImpact:
        ctx = info.context
        found = await erasure.impact(ctx.memory, ctx.tenant, str(message_id))
        return DeletionImpact.from_impact(found)

    @strawberry.field(
        description="Messages whose processing failed for good (after every retry), newest "
        "first; one user's, or the tenant's when userId is omitted."
    )
    async def failed_messages(
        self,
        info: Info[Context, None],
        user_id: str | None = None,
        limit: int = 50,
        offset: int = 0,
    ) -> list[FailedMessage]:
        ctx = info.context
        page = Page.of(limit, offset, MAX_PAGE)
        rows = await ctx.memory.failed_messages(ctx.tenant, user_id, page)
        return [mapped(FailedMessage, r) for r in rows]

    @strawberry.field(
        description="Where each asked Message stands in processing (pending, processed,"
        " failed, not_found), in the order asked: for a client that needs read-your-writes"
        " while workers process its batches. The tenant's Messages, only userId's when given;"
        " at most GUMEM_MAX_BATCH ids."
    )
    async def processing(
        self,
        info: Info[Context, None],
        ids: list[strawberry.ID],
        user_id: str | None = None,
    ) -> list[MessageProcessing]:
        ctx = info.context
        found = await ctx.memory.processing(ctx.tenant, [str(i) for i in ids], user_id)
        ctx.charge(len(found))
        return [MessageProcessing.from_record(p) for p in found]

    @strawberry.field(description="Deletions done for this tenant (ids and counts, no content).")
    async def audit_log(
        self, info: Info[Context, None], limit: int = 50, offset: int = 0
    ) -> list[AuditRecord]:
        ctx = info.context
        rows = await erasure.audit_log(ctx.memory, ctx.tenant, Page.of(limit, offset, MAX_PAGE))
        ctx.charge(len(rows))
        return [AuditRecord.from_entry(e) for e in rows]
