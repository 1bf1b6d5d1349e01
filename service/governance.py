"""Governance of a user's memory: a Summary's memory status set by hand, its retrieval
boost, and decay maintenance (each active Summary's weight recomputed, its status moved).
Memory's methods of the same names come here."""

from __future__ import annotations

from datetime import datetime

from consolidation.decay import MEMORY_STATUSES, effective_weight, next_status
from core.errors import InputError, NotFoundError
from core.inputs import parse_now
from core.settings import Settings
from graph import governance as ggov
from graph.db import Database
from graph.records import StatusChange


async def set_memory_status(db: Database, tenant: str, summary_id: str, status: str) -> None:
    if status not in MEMORY_STATUSES:
        raise InputError("status", f"must be one of {', '.join(MEMORY_STATUSES)}")
    if not await ggov.set_memory_status(db, tenant, summary_id, status):
        raise NotFoundError(f"no summary {summary_id!r}")


async def boost_summary(db: Database, tenant: str, summary_id: str, boost: float) -> None:
    if not 0.0 <= boost <= 10.0:
        raise InputError("boost", "must be between 0 and 10")
    if not await ggov.boost_summary(db, tenant, summary_id, boost):
        raise NotFoundError(f"no summary {summary_id!r}")


async def run_maintenance(
    db: Database, settings: Settings, tenant: str, now: datetime | None = None
) -> dict[str, int]:
    """Decay: recompute each active Summary's weight and move its memory_status."""
    now = parse_now(now)
    changes = []
    counts = {"examined": 0, "deprioritized": 0, "archived": 0}
    for s in await ggov.maintenance_candidates(db, tenant):
        counts["examined"] += 1
        weight = effective_weight(s.decay_factor, s.event_end, now, s.retrieval_boost)
        status = next_status(
            s.memory_status,
            weight,
            settings.deprioritize_below,
            settings.archive_below,
        )
        if status != s.memory_status:
            counts[status] += 1
        changes.append(StatusChange(s.summary_id, status, weight))
    if changes:
        await ggov.apply_maintenance(db, tenant, changes)
    return counts
