"""Right to be forgotten (the service side of erasure): preview a Message's deletion, carry it
out exactly, forget users. The graph side (plans, deletes, audit records) is graph/deletion.py."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from core.errors import ConflictError, InputError
from core.inputs import Page, parse_ident, parse_tenant
from core.records import AuditEntry
from graph import deletion as gd
from graph.topic_summary_writes import NewSummary
from service.memory import Memory

log = logging.getLogger(__name__)

LOCK_WAIT_S = 10.0  # past it a deletion goes on; the fencing token stops the running run
CONFLICT_RETRIES = 3  # a deletion re-planned because processing moved the graph meanwhile


@dataclass
class Impact:
    plan: gd.DeletionPlan
    rebuilt: list[NewSummary]
    orphan_topic_ids: list[str]
    orphan_topics: list[str]
    retired_summaries: list[str]  # active versions whose topic keeps no summary
    rebuilt_summaries: list[str]  # active versions replaced by a re-derived one
    purged_versions: list[str]  # older versions that held the deleted content


async def impact(memory: Memory, tenant: str, message_id: str) -> Impact:
    """The dry run: exactly what delete_message will do."""
    tenant, message_id = parse_tenant(tenant), parse_ident(message_id, "messageId")
    if memory.pipeline is None:
        raise InputError("id", "deletion needs the processing pipeline")
    plan = await gd.plan_deletion(memory.db, tenant, message_id)
    active = [s for s in plan.summaries if s.validity == "active"]
    topics = sorted({s.topic for s in active})
    purged = [s.summary_id for s in plan.summaries]
    rebuilt = await memory.pipeline.consolidation.rebuild(
        tenant,
        plan.user_id,
        topics,
        plan.removed_facts,
        plan.restored_facts,
        purged,
        revise=plan.revise,
    )
    usage = await gd.topic_usage(
        memory.db,
        tenant,
        plan.user_id,
        sorted({s.topic for s in plan.summaries}),
        plan.removed_facts,
        purged,
    )
    new_topics = {s.draft.topic for s in rebuilt}
    orphans = [u for u in usage if u.facts == 0 and u.summaries == 0 and u.name not in new_topics]
    return Impact(
        plan=plan,
        rebuilt=rebuilt,
        orphan_topic_ids=[u.topic_id for u in orphans],
        orphan_topics=[u.name for u in orphans],
        retired_summaries=[s.summary_id for s in active if s.topic not in new_topics],
        rebuilt_summaries=[s.summary_id for s in active if s.topic in new_topics],
        purged_versions=[s.summary_id for s in plan.summaries if s.validity != "active"],
    )


@asynccontextmanager
async def _quiet(memory: Memory, tenant: str, user_id: str) -> AsyncIterator[None]:
    """Hold this process's lock on the user's processing, waiting at most LOCK_WAIT_S.
    Correctness across processes comes from the fencing token the deletion changes."""
    lock: asyncio.Lock | None = (
        memory.pipeline.user_lock(tenant, user_id) if memory.pipeline is not None else None
    )
    held = False
    if lock is not None:
        try:
            await asyncio.wait_for(lock.acquire(), LOCK_WAIT_S)
            held = True
        except TimeoutError:
            log.info("deletion goes on while processing runs; the run will be fenced")
    try:
        yield
    finally:
        if held and lock is not None:
            lock.release()


async def delete_message(
    memory: Memory, tenant: str, message_id: str
) -> tuple[Impact, dict[str, int]]:
    tenant, message_id = parse_tenant(tenant), parse_ident(message_id, "id")
    user_id = (await gd.plan_deletion(memory.db, tenant, message_id)).user_id
    async with _quiet(memory, tenant, user_id):
        for attempt in range(CONFLICT_RETRIES):
            found = await impact(memory, tenant, message_id)
            try:
                counts = await gd.delete_message(
                    memory.db, tenant, found.plan, found.rebuilt, found.orphan_topic_ids
                )
            except ConflictError:
                if attempt + 1 == CONFLICT_RETRIES:
                    raise
                continue
            return found, counts
    raise AssertionError("unreachable")


async def forget_user(memory: Memory, tenant: str, user_id: str) -> dict[str, int]:
    tenant, user_id = parse_tenant(tenant), parse_ident(user_id, "userId")
    async with _quiet(memory, tenant, user_id):
        return await gd.forget_user(memory.db, tenant, user_id)


async def audit_log(memory: Memory, tenant: str, page: Page) -> list[AuditEntry]:
    return await gd.audit_log(memory.db, parse_tenant(tenant), page)
