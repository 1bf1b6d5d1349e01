"""addMessages takes turns: at most GUMEM_MAX_CONCURRENT_WRITES store at once per process."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from core.settings import Settings
from graph import ingest
from graph.ingest import IngestResult
from service.memory import Memory


def _item(i: int) -> dict[str, Any]:
    return {
        "id": f"m{i}",
        "userId": "u1",
        "sessionId": "s1",
        "role": "user",
        "content": f"message number {i}",
        "timestamp": "2026-12-06T10:00:00Z",
    }


async def test_writes_take_turns(monkeypatch: pytest.MonkeyPatch) -> None:
    inside = 0
    most = 0

    async def store(db: object, tenant: str, batch: list[Any], langs: list[str]) -> IngestResult:
        nonlocal inside, most
        inside += 1
        most = max(most, inside)
        await asyncio.sleep(0.02)
        inside -= 1
        return IngestResult([m.message_id for m in batch], [])

    monkeypatch.setattr(ingest, "add_messages", store)
    memory = Memory(object(), Settings(process_mode="async", max_concurrent_writes=2))  # type: ignore[arg-type]
    try:
        results = await asyncio.gather(*(memory.add_messages("t1", [_item(i)]) for i in range(6)))
    finally:
        memory.close()
    assert [r.accepted for r in results] == [[f"m{i}"] for i in range(6)]  # none lost
    assert most == 2
