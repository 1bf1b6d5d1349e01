"""The GraphQL Query root: recall (`memory`), the stored nodes by id or by user, a page at a
time, provenance (`trace`), processing status, failures and the audit log."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.types import Info

from api.audit_types import AuditRecord, DeletionImpact, Trace
from api.context import Context
from api.ops_types import FailedMessage, Health, MessageProcessing, WorkerHealth
from api.recall_types import MemoryContext, MemoryItem
from api.types import Fact, Message, Summary, Topic, WorldEntity
from core.errors import InputError
from service import erasure
from service.recall import Item

MAX_PAGE = 200


def _page(limit: int, offset: int) -> tuple[int, int]:
    if not 1 <= limit <= MAX_PAGE:
        raise InputError("limit", f"must be between 1 and {MAX_PAGE}")
    if offset < 0:
        raise InputError("offset", "must be >= 0")
    return limit, offset


def _item(it: Item) -> MemoryItem:
    return MemoryItem(
        id=strawberry.ID(it.id),
        kind=it.kind,
        content=it.content,
        score=it.score,
        reason=it.reason,
        topic=it.topic,
        confidence=it.confidence,
        timestamp=it.timestamp,
        source_fact_ids=it.source_fact_ids,
        source_message_ids=it.source_message_ids,
        author=it.author,
        superseded=it.superseded,
        relevant_fact_ids=it.relevant_fact_ids,
    )


@strawberry.type
class Query:
    @strawberry.field
    async def health(self, info: Info[Context, None]) -> Health:
        memory = info.context.memory
        w = memory.pipeline.status if memory.pipeline is not None else None
        worker = (
            WorkerHealth(
                state=w.state,
                restarts=w.restarts,
                last_error=w.last_error,
                last_success=w.last_success,
                pending_users=w.pending_users,
            )
            if w is not None
            else None
        )
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
        return MemoryContext(
            query=r.query,
            short_term_context=[_item(i) for i in r.short_term],
            mid_term_context=[_item(i) for i in r.mid_term],
            long_term_user_context=[_item(i) for i in r.long_term],
            formatted_context=r.formatted,
            time_window_start=r.window.start if r.window else None,
            time_window_end=r.window.end if r.window else None,
        )

    @strawberry.field
    async def topics(
        self, info: Info[Context, None], user_id: str, limit: int = 50, offset: int = 0
    ) -> list[Topic]:
        ctx = info.context
        lim, off = _page(limit, offset)
        found = await ctx.memory.topics(ctx.tenant, user_id, lim, off)
        ctx.charge(len(found))
        return [
            Topic(
                id=strawberry.ID(t.topic_id),
                name=t.name,
                summary_count=t.summary_count,
                fact_count=t.fact_count,
            )
            for t in found
        ]

    @strawberry.field(
        description="The entities of a user's world that Facts are about (people, pets,"
        " events, places, organisations, items), the latest touched first." + " At most"
        " `limit` items (GUMEM_MAX_LIST_SIZE at most), from `offset`."
    )
    async def entities(
        self, info: Info[Context, None], user_id: str, limit: int = 50, offset: int = 0
    ) -> list[WorldEntity]:
        ctx = info.context
        found = await ctx.memory.entities(ctx.tenant, user_id, limit, offset)
        ctx.charge(len(found))
        return [WorldEntity.from_record(e) for e in found]

    @strawberry.field(description="One entity of a user's world by id.")
    async def entity(self, info: Info[Context, None], id: strawberry.ID) -> WorldEntity | None:
        found = await info.context.loaders.entity.load(str(id))
        return WorldEntity.from_record(found) if found else None

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
        lim, off = _page(limit, offset)
        ids = await ctx.memory.fact_ids(ctx.tenant, user_id, include_inactive, lim, off, as_of)
        ctx.charge(len(ids))
        return [Fact.from_record(f) for f in await ctx.loaders.many(ctx.loaders.fact, ids)]

    @strawberry.field
    async def fact(self, info: Info[Context, None], id: strawberry.ID) -> Fact | None:
        found = await info.context.loaders.fact.load(str(id))
        return Fact.from_record(found) if found else None

    @strawberry.field
    async def summary(self, info: Info[Context, None], id: strawberry.ID) -> Summary | None:
        found = await info.context.loaders.summary.load(str(id))
        return Summary.from_record(found) if found else None

    @strawberry.field
    async def message(self, info: Info[Context, None], id: strawberry.ID) -> Message | None:
        found = await info.context.loaders.message.load(str(id))
        return Message.from_record(found) if found else None

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
        lim, off = _page(limit, offset)
        found = await ctx.memory.messages(ctx.tenant, user_id, session_id, lim, off)
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
        lim, off = _page(limit, offset)
        rows = await ctx.memory.failed_messages(ctx.tenant, user_id, lim, off)
        return [
            FailedMessage(
                id=strawberry.ID(r.message_id),
                user_id=r.user_id,
                session_id=r.session_id,
                reason=r.reason,
                attempts=r.attempts,
                last_attempt_at=r.last_attempt_at,
                timestamp=r.timestamp,
            )
            for r in rows
        ]

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
        lim, off = _page(limit, offset)
        rows = await erasure.audit_log(ctx.memory, ctx.tenant, lim, off)
        ctx.charge(len(rows))
        return [AuditRecord.from_entry(e) for e in rows]
