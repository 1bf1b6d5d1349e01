"""A worker holds `worker_users` users at a time, in units of work processed side by side;
each user's work is its own."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from service.memory import Memory
from service.pipeline import Pipeline, Report

USERS = [f"u-lane-{i}" for i in range(5)]


def msg(user: str, i: int, content: str) -> dict[str, Any]:
    return {
        "id": f"{user}-{i}",
        "userId": user,
        "sessionId": f"{user}-s",
        "role": "user",
        "content": content,
        "timestamp": f"2026-11-30T10:{i:02d}:00+08:00",
    }


async def queue(memory: Memory) -> None:
    queued = Memory(memory.db, memory.settings.model_copy(update={"process_mode": "async"}))
    batch = [
        m
        for n, user in enumerate(USERS)
        for m in (
            msg(user, 1, f"I live in city number {n + 1}."),
            msg(user, 2, "我喜欢爵士乐。" if n % 2 else "I play the cello."),
        )
    ]
    res = await queued.add_messages("tenant-a", batch)
    assert len(res.accepted) == 2 * len(USERS) and res.processed == 0


def watch(pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch, users: int) -> list[list[int]]:
    """Run the pipeline with `users` users in hand; the list gets, at each unit's start,
    the sizes of the units then running."""
    monkeypatch.setattr(
        pipeline, "settings", pipeline.settings.model_copy(update={"worker_users": users})
    )
    real = pipeline.process_group
    running: list[int] = []
    seen: list[list[int]] = []

    async def counted(keys: list[tuple[str, str]], wait_s: float = 0.0) -> dict[Any, Report]:
        running.append(len(keys))
        seen.append(list(running))
        try:
            return await real(keys, wait_s)
        finally:
            running.remove(len(keys))

    monkeypatch.setattr(pipeline, "process_group", counted)
    return seen


@pytest.fixture
async def lanes(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> tuple[Pipeline, list[list[int]]]:
    """Ten queued Messages of five users; a pipeline holding 4 users at a time (two units
    of two), watched (`watch`)."""
    pipeline = memory.pipeline
    assert pipeline is not None
    await queue(memory)
    return pipeline, watch(pipeline, monkeypatch, users=4)


async def test_users_are_processed_in_units_side_by_side_each_from_its_own_messages(
    memory: Memory, lanes: tuple[Pipeline, list[list[int]]]
) -> None:
    pipeline, seen = lanes
    assert await pipeline.process_pending() == 2 * len(USERS)
    assert sorted(s[-1] for s in seen) == [1, 2, 2]  # three units: users in hand 2 + 2
    assert max(sum(s) for s in seen) <= 4 and [2, 2] in seen
    rows = await memory.db.rows(
        """MATCH (f:Fact {validity: 'active'})-[:SOURCE]->(m:Message)
        RETURN f.user_id AS owner, collect(DISTINCT m.user_id) AS sources, count(*) AS n"""
    )
    assert {r["owner"] for r in rows} == set(USERS)
    assert all(r["sources"] == [r["owner"]] for r in rows)  # no user's Fact from another's turn
    statuses = await memory.db.rows("MATCH (m:Message) RETURN collect(DISTINCT m.status) AS s")
    assert statuses[0]["s"] == ["processed"]


async def test_while_an_api_is_busy_one_unit_at_a_time(
    lanes: tuple[Pipeline, list[list[int]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    pipeline, seen = lanes

    async def busy() -> bool:
        return True

    async def no_pause(worked_s: float, stop: asyncio.Event | None = None) -> float:
        return 0.0

    monkeypatch.setattr(pipeline.pacer, "busy", busy)
    monkeypatch.setattr(pipeline.pacer, "pause", no_pause)
    assert await pipeline.process_pending() == 2 * len(USERS)
    assert seen == [[2], [2], [1]]
