"""The GraphQL Mutation root: addMessages, retrying failed Messages, a Summary's status and
boost by hand, maintenance, and deletion (one Message, or everything of a user)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.scalars import JSON
from strawberry.types import Info

from api.audit_types import DeletionImpact, DeletionReport, ForgetReport
from api.context import Context
from api.mapping import load_one, mapped
from api.types import Summary
from api.write_types import AddMessagesResult, ItemError, MaintenanceResult, MessageInput
from core.errors import InputError
from core.inputs import BatchError
from service import erasure


@strawberry.type
class Mutation:
    @strawberry.mutation
    async def add_messages(
        self,
        info: Info[Context, None],
        messages: list[MessageInput],
        wait: Annotated[
            bool,
            strawberry.argument(
                description="Async mode: answer only once the batch's Messages are no longer"
                " pending (whichever worker processes them), or when waitSeconds has passed"
                " (then timedOut is true). Sync mode: changes nothing."
            ),
        ] = False,
        wait_seconds: Annotated[
            float | None,
            strawberry.argument(
                description="The most wait waits, in seconds: more than 0, at most"
                " GUMEM_MAX_WAIT_S (the default)."
            ),
        ] = None,
    ) -> AddMessagesResult:
        ctx = info.context
        try:
            res = await ctx.memory.add_messages(
                ctx.tenant, list(messages), wait=wait, wait_s=wait_seconds
            )
        except BatchError as exc:
            return AddMessagesResult.refused([mapped(ItemError, e) for e in exc.errors])
        except InputError as exc:
            return AddMessagesResult.refused([mapped(ItemError, exc)])
        return mapped(AddMessagesResult, res, errors=[])

    @strawberry.mutation(
        description="Re-queue failed Messages by id (attempts start over); how many were."
    )
    async def retry_messages(self, info: Info[Context, None], ids: list[strawberry.ID]) -> int:
        ctx = info.context
        return await ctx.memory.retry_messages(ctx.tenant, [str(i) for i in ids])

    @strawberry.mutation(description="Re-queue every failed Message of one user; how many.")
    async def retry_failed(self, info: Info[Context, None], user_id: str) -> int:
        ctx = info.context
        return await ctx.memory.retry_failed(ctx.tenant, user_id)

    @strawberry.mutation(description="Set a Summary's memory_status by hand.")
    async def set_memory_status(
        self, info: Info[Context, None], id: strawberry.ID, status: str
    ) -> Summary | None:
        ctx = info.context
        await ctx.memory.set_memory_status(ctx.tenant, str(id), status)
        return await load_one(ctx.loaders.summary, str(id), Summary.from_record)

    @strawberry.mutation(description="Set a Summary's retrieval_boost (ranking weight).")
    async def boost_summary(
        self, info: Info[Context, None], id: strawberry.ID, boost: float
    ) -> Summary | None:
        ctx = info.context
        await ctx.memory.boost_summary(ctx.tenant, str(id), boost)
        return await load_one(ctx.loaders.summary, str(id), Summary.from_record)

    @strawberry.mutation(description="Recompute decay and move memory_status by thresholds.")
    async def run_maintenance(
        self, info: Info[Context, None], now: datetime | None = None
    ) -> MaintenanceResult:
        ctx = info.context
        res = await ctx.memory.run_maintenance(ctx.tenant, now)
        return MaintenanceResult(
            examined=res["examined"], deprioritized=res["deprioritized"], archived=res["archived"]
        )

    @strawberry.mutation(description="Delete a Message and everything that depended only on it.")
    async def delete_message(self, info: Info[Context, None], id: strawberry.ID) -> DeletionReport:
        ctx = info.context
        found, counts = await erasure.delete_message(ctx.memory, ctx.tenant, str(id))
        return DeletionReport(impact=DeletionImpact.from_impact(found), counts=JSON(counts))

    @strawberry.mutation(description="Erase everything of one user; verifies nothing remains.")
    async def forget_user(self, info: Info[Context, None], user_id: str) -> ForgetReport:
        ctx = info.context
        counts = await erasure.forget_user(ctx.memory, ctx.tenant, user_id)
        return ForgetReport(user_id=user_id, counts=JSON(counts), remaining=counts["remaining"])
