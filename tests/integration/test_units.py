"""Several users' batches in one unit of work (issue 40): each user's part of the write is
fenced on its own, so a deletion of one user's Message mid-unit leaves nothing derived from
it, whichever users share the unit, while the others commit; an error in one user's part
fails no other user. Real Neo4j; only a pipeline step is paused or broken in-process."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph import fact_writes
from graph.db import Database
from service import erasure
from service.memory import Memory
from service.pipeline import Pipeline
from tests.integration.test_erasure_race import Pause

TENANT = "tenant-u"
T0 = datetime(2026, 5, 4, 8, 0, tzinfo=UTC)
TARGET = "unit-target-91c"  # the deleted Message: no other string contains it
A, B, C = "u-unit-a", "u-unit-b", "u-unit-c"


def msg(user: str, mid: str, content: str, minute: int) -> dict[str, Any]:
    return {
        "id": mid,
        "userId": user,
        "sessionId": f"{user}-s",
        "role": "user",
        "content": content,
        "timestamp": (T0 + timedelta(minutes=minute)).isoformat(),
    }


BATCH = [
    msg(A, "a1", "I am vegetarian.", 0),
    msg(A, TARGET, "My sister Lena is allergic to shellfish.", 1),
    msg(B, "b1", "I live in Porto and I work as a carpenter.", 0),
    msg(B, "b2", "我每周三晚上去练游泳。", 1),
    msg(C, "c1", "My landlord's phone number changed to 555-0199.", 0),
]


async def store(memory: Memory) -> None:
    await Memory(memory.db, memory.settings, None).add_messages(TENANT, BATCH)


async def derived(db: Database, user: str) -> list[dict[str, Any]]:
    """Every Fact, Summary, Topic and Entity of the user, with its properties as text."""
    rows = await db.rows(
        """MATCH (n) WHERE (n:Fact OR n:Summary OR n:Topic OR n:Entity) AND n.user_id = $u
        RETURN labels(n)[0] AS label, properties(n) AS props""",
        u=user,
    )
    return [{"label": r["label"], "props": str(r["props"])} for r in rows]


async def statuses(db: Database) -> dict[str, str]:
    rows = await db.rows(
        "MATCH (m:Message) WHERE m.tenant = $t RETURN m.message_id AS id, m.status AS s",
        t=TENANT,
    )
    return {r["id"]: r["s"] for r in rows}


async def test_users_of_one_unit_share_its_transactions(memory: Memory, other: Pipeline) -> None:
    await store(memory)
    reports = await other.process_group([(TENANT, A), (TENANT, B), (TENANT, C)])
    assert {k[1]: r.messages for k, r in reports.items()} == {A: 2, B: 2, C: 1}
    assert set((await statuses(memory.db)).values()) == {"processed"}
    rows = await memory.db.rows(
        """MATCH (f:Fact {validity: 'active'})-[:SOURCE]->(m:Message) WHERE f.tenant = $t
        RETURN f.user_id AS owner, collect(DISTINCT m.user_id) AS sources""",
        t=TENANT,
    )
    assert {r["owner"] for r in rows} == {A, B, C}
    assert all(r["sources"] == [r["owner"]] for r in rows)  # no Fact from another's turn
    for user in (A, B, C):
        assert any(n["label"] == "Summary" for n in await derived(memory.db, user))


@pytest.mark.parametrize(
    "step",
    [
        "unit._extract",  # before the unit's write: A's part of it is fenced
        "consolidation._embed_summaries",  # after it: A's consolidation is fenced
    ],
)
async def test_a_deletion_mid_unit_fences_its_user_only(
    memory: Memory,
    other: Pipeline,
    step: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    await store(memory)
    pause = Pause(other, step, monkeypatch)
    run = asyncio.create_task(other.process_group([(TENANT, A), (TENANT, B), (TENANT, C)]))
    await asyncio.wait_for(pause.reached.wait(), 120)  # the unit has read every Message

    await erasure.delete_message(memory, TENANT, TARGET)
    pause.go.set()
    reports = await asyncio.wait_for(run, 120)

    assert "fenced by a deletion" in caplog.text
    assert reports[(TENANT, B)].messages == 2 and reports[(TENANT, C)].messages == 1
    assert await statuses(memory.db) == {
        "a1": "processed",
        "b1": "processed",
        "b2": "processed",
        "c1": "processed",
    }
    nodes = await derived(memory.db, A)
    assert any("vegetarian" in n["props"] for n in nodes if n["label"] == "Fact")
    assert not [n for n in nodes if TARGET in n["props"] or "shellfish" in n["props"]]
    for user in (B, C):  # the users that shared the unit are whole
        assert any(n["label"] == "Summary" for n in await derived(memory.db, user))


async def test_an_error_in_one_users_part_fails_no_other_user(
    memory: Memory, other: Pipeline, monkeypatch: pytest.MonkeyPatch
) -> None:
    await store(memory)
    real = fact_writes.facts_write

    def broken(tenant: str, user_id: str, facts: Any, processed: Any, *a: Any, **k: Any) -> Any:
        if TARGET in processed:  # the write of A's batch while it holds the target
            raise ValueError("injected")
        return real(tenant, user_id, facts, processed, *a, **k)

    monkeypatch.setattr(fact_writes, "facts_write", broken)  # as service.unit calls it
    reports = await other.process_group([(TENANT, A), (TENANT, B), (TENANT, C)])
    assert reports[(TENANT, B)].messages == 2 and reports[(TENANT, C)].messages == 1
    # A alone, then Message by Message: only the one whose write fails is failed
    assert reports[(TENANT, A)].messages == 1 and reports[(TENANT, A)].failed == 1
    got = await statuses(memory.db)
    assert got.pop(TARGET) in {"pending", "failed"}  # a failed attempt waits for its retry
    assert set(got.values()) == {"processed"}


async def test_concurrent_sync_requests_are_combined_into_units(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sync processing (service/combine.py): the users that requests ask for while a unit
    runs go together in the next unit, and each request still gets its own count."""
    pipeline = memory.pipeline
    assert pipeline is not None
    await store(memory)
    real = pipeline.process_group
    units: list[list[str]] = []
    gate = asyncio.Event()  # holds the first two units until the later requests are made

    async def recorded(keys: list[tuple[str, str]], wait_s: float = 0.0) -> dict[Any, Any]:
        units.append(sorted(u for _, u in keys))
        if len(units) <= 2:
            await gate.wait()
        return await real(keys, wait_s)

    monkeypatch.setattr(pipeline, "process_group", recorded)

    async def started(n: int) -> None:
        async def wait() -> None:
            while len(units) < n:
                await asyncio.sleep(0.01)

        await asyncio.wait_for(wait(), 60)

    first = asyncio.create_task(pipeline.process_users(TENANT, [A]))
    await started(1)  # A's unit holds one lane
    second = asyncio.create_task(pipeline.process_users(TENANT, [B]))
    await started(2)  # B's the other
    later = [
        asyncio.create_task(pipeline.process_users(TENANT, [C])),
        asyncio.create_task(pipeline.process_users(TENANT, [A])),
    ]
    await asyncio.sleep(0.05)
    assert len(units) == 2  # C and A wait for a lane
    gate.set()
    counts = await asyncio.wait_for(asyncio.gather(first, second, *later), 300)
    assert counts == [2, 2, 1, 0]  # A's Messages were processed by its first unit
    assert units == [[A], [B], [A, C]]
    assert set((await statuses(memory.db)).values()) == {"processed"}
