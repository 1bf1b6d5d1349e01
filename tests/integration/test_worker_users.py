"""A worker processes `worker_users` users side by side, each user's work its own."""

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


def watch(pipeline: Pipeline, monkeypatch: pytest.MonkeyPatch, users: int) -> list[int]:
    """Run the pipeline with `users` lanes; the list gets the number of users in hand at
    each start."""
    monkeypatch.setattr(
        pipeline, "settings", pipeline.settings.model_copy(update={"worker_users": users})
    )
    real = pipeline.process_user
    active: list[int] = [0]
    seen: list[int] = []

    async def counted(tenant: str, user_id: str, wait_s: float = 0.0) -> Report:
        active[0] += 1
        seen.append(active[0])
        try:
            return await real(tenant, user_id, wait_s)
        finally:
            active[0] -= 1

    monkeypatch.setattr(pipeline, "process_user", counted)
    return seen


@pytest.fixture
async def lanes(memory: Memory, monkeypatch: pytest.MonkeyPatch) -> tuple[Pipeline, list[int]]:
    """Ten queued Messages of five users; a pipeline of 3 lanes, watched (`watch`)."""
    pipeline = memory.pipeline
    assert pipeline is not None
    await queue(memory)
    return pipeline, watch(pipeline, monkeypatch, users=3)


async def test_users_are_processed_side_by_side_each_from_its_own_messages(
    memory: Memory, lanes: tuple[Pipeline, list[int]]
) -> None:
    pipeline, seen = lanes
    assert await pipeline.process_pending() == 2 * len(USERS)
    assert len(seen) == len(USERS) and max(seen) == 3
    rows = await memory.db.rows(
        """MATCH (f:Fact {validity: 'active'})-[:SOURCE]->(m:Message)
        RETURN f.user_id AS owner, collect(DISTINCT m.user_id) AS sources, count(*) AS n"""
    )
    assert {r["owner"] for r in rows} == set(USERS)
    assert all(r["sources"] == [r["owner"]] for r in rows)  # no user's Fact from another's turn
    statuses = await memory.db.rows("MATCH (m:Message) RETURN collect(DISTINCT m.status) AS s")
    assert statuses[0]["s"] == ["processed"]


async def test_while_an_api_is_busy_one_user_at_a_time(
    lanes: tuple[Pipeline, list[int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    pipeline, seen = lanes

    async def busy() -> bool:
        return True

    async def no_pause(worked_s: float, stop: asyncio.Event | None = None) -> float:
        return 0.0

    monkeypatch.setattr(pipeline.pacer, "busy", busy)
    monkeypatch.setattr(pipeline.pacer, "pause", no_pause)
    assert await pipeline.process_pending() == 2 * len(USERS)
    assert seen == [1] * len(USERS)
