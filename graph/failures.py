"""Messages whose processing failed: an attempt marked (retried after a backoff, or failed
for good), the failed ones listed, and re-queued on request."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from neo4j import AsyncManagedTransaction

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


@dataclass(frozen=True)
class FailedMessage:
    message_id: str
    user_id: str
    session_id: str
    reason: str
    attempts: int
    last_attempt_at: datetime | None
    timestamp: datetime


async def failed_messages(
    db: Database, tenant: str, user_id: str | None, limit: int, offset: int
) -> list[FailedMessage]:
    rows = await user_rows(db, "failed_messages", tenant, user_id, limit=limit, offset=offset)
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
