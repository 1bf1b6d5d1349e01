"""Manual and scheduled changes to how Summaries are recalled (status, boost, decay)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from graph.db import Database, native, tx_rows
from graph.queries import query
from graph.records import DecayState, StatusChange


async def _set(db: Database, name: str, **params: Any) -> bool:
    async def work(tx: AsyncManagedTransaction) -> bool:
        return bool(await tx_rows(tx, query(name), now=datetime.now(UTC), **params))

    return await db.write(work)


async def set_memory_status(db: Database, tenant: str, summary_id: str, status: str) -> bool:
    return await _set(db, "set_memory_status", tenant=tenant, id=summary_id, status=status)


async def boost_summary(db: Database, tenant: str, summary_id: str, boost: float) -> bool:
    return await _set(db, "boost_summary", tenant=tenant, id=summary_id, boost=boost)


async def maintenance_candidates(db: Database, tenant: str) -> list[DecayState]:
    rows = await db.rows(query("maintenance_candidates"), tenant=tenant)
    return [
        DecayState(
            summary_id=r["summary_id"],
            decay_factor=float(r["decay_factor"]),
            event_end=native(r["event_end"]),
            retrieval_boost=float(r["retrieval_boost"]),
            memory_status=r["memory_status"],
        )
        for r in rows
    ]


async def apply_maintenance(db: Database, tenant: str, changes: list[StatusChange]) -> None:
    rows = [{"summary_id": c.summary_id, "status": c.status, "weight": c.weight} for c in changes]

    async def work(tx: AsyncManagedTransaction) -> None:
        await tx_rows(
            tx, query("maintenance_apply"), tenant=tenant, rows=rows, now=datetime.now(UTC)
        )

    await db.write(work)
