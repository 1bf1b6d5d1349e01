"""Foreground first, on the real Neo4j: an API's recall rate reaches every worker."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from graph import pressure
from service import foreground
from service.foreground import Meter, Pacer
from service.memory import Memory


async def _nodes(memory: Memory) -> list[str]:
    rows = await memory.db.rows("MATCH (f:Foreground) RETURN f.source AS s ORDER BY s")
    return [r["s"] for r in rows]


async def test_busy_until_it_lapses(memory: Memory) -> None:
    now = datetime.now(UTC)
    assert not await pressure.foreground_busy(memory.db, now)
    await pressure.publish_busy(memory.db, "api-a", now + timedelta(seconds=3))
    assert await pressure.foreground_busy(memory.db, now)
    assert not await pressure.foreground_busy(memory.db, now + timedelta(seconds=4))
    await pressure.publish_busy(memory.db, "api-a", now + timedelta(seconds=10))  # moves on
    assert await _nodes(memory) == ["api-a"]
    assert await pressure.foreground_busy(memory.db, now + timedelta(seconds=4))


async def test_gone_apis_are_removed(memory: Memory) -> None:
    now = datetime.now(UTC)
    await pressure.publish_busy(memory.db, "api-gone", now - pressure.STALE - timedelta(minutes=1))
    await pressure.publish_busy(memory.db, "api-live", now + timedelta(seconds=3))
    assert await _nodes(memory) == ["api-live"]


async def test_recalls_make_the_workers_yield(memory: Memory) -> None:
    pacer = Pacer(memory.db, memory.settings)  # as a worker elsewhere would
    meter = Meter(memory.db, memory.settings, "api-test")
    memory.meter = meter
    try:
        for q in ("running shoes", "hotel", "budget"):
            await memory.recall("t-fg", "u-fg", q)
        assert await meter.tick(1.0, datetime.now(UTC))  # 3 recalls/s ≥ 2/s
    finally:
        memory.meter = None
    assert await pacer.busy()
    worked = 0.01
    waited = await pacer.pause(worked)
    share = memory.settings.worker_busy_share
    assert waited >= min(worked * (1 / share - 1), foreground.MAX_PAUSE_S) * 0.9
