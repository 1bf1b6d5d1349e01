"""Messages whose processing failed: an attempt marked (retried after a backoff, or failed
for good), the failed ones listed, and re-queued on request."""

from __future__ import annotations

from datetime import UTC, datetime

from neo4j import AsyncManagedTransaction

from core.inputs import Page
from core.wire import FailedMessage
from graph.db import Database, native, tx_rows
from graph.ingest import message_uid
from graph.queries import query, user_rows


def retry_delays_ms(max_attempts: int, backoff_s: float, cap_s: float = 3600.0) -> list[int]:
    """The wait before attempt n + 1 after n failed ones: doubling from `backoff_s`."""
    return [int(min(backoff_s * 2**n, cap_s) * 1000) for n in range(max_attempts)]


async def mark_failed(
    db: Database, tenant: str, failed: dict[str, str], *, max_attempts: int, backoff_s: float
) -> None:
    """One failed attempt for each Message (id → reason): retried after a backoff, or
    `failed` for good once `max_attempts` are spent."""
    rows = [{"uid": message_uid(tenant, i), "reason": r} for i, r in failed.items()]

    async def work(tx: AsyncManagedTransaction) -> None:
        await tx_rows(
            tx,
            query("mark_failed"),
            rows=rows,
            now=datetime.now(UTC),
            max_attempts=max_attempts,
            delays=retry_delays_ms(max_attempts, backoff_s),
        )

    await db.write(work)


async def failed_messages(
    db: Database, tenant: str, user_id: str | None, page: Page
) -> list[FailedMessage]:
    rows = await user_rows(db, "failed_messages", tenant, user_id, page)
    return [
        FailedMessage(
            r["message_id"],
            r["user_id"],
            r["session_id"],
            r["reason"] or "unknown",
            int(r["attempts"]),
            native(r["last_attempt_at"]),
            native(r["timestamp"]),
        )
        for r in rows
    ]


async def retry_messages(db: Database, tenant: str, message_ids: list[str]) -> dict[str, int]:
    """Re-queue these failed Messages of the tenant; how many per user."""
    uids = [message_uid(tenant, i) for i in message_ids]

    async def work(tx: AsyncManagedTransaction) -> dict[str, int]:
        rows = await tx_rows(tx, query("retry_messages"), tenant=tenant, uids=uids)
        return {r["user_id"]: int(r["n"]) for r in rows}

    return await db.write(work)


async def retry_failed(db: Database, tenant: str, user_id: str) -> int:
    """Re-queue every failed Message of one user; how many."""

    async def work(tx: AsyncManagedTransaction) -> int:
        rows = await tx_rows(tx, query("retry_failed"), tenant=tenant, user_id=user_id)
        return int(rows[0]["n"]) if rows else 0

    return await db.write(work)
