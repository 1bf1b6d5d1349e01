"""Erasure that is final (issue 15, class 5): deletion fences in-flight processing, kept
Facts and Summaries lose every trace of a deleted Message, identical Facts keep all
their sources. Real Neo4j; only the extraction step is paused in-process."""

from __future__ import annotations

import asyncio
import functools
import json
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from core.errors import Fenced
from extract.types import FactDraft
from graph.db import Database, native
from graph.fact_writes import NewFact, write_facts
from graph.fencing import user_token
from graph.ingest import user_uid
from graph.pending import pending_messages
from graph.queries import query
from graph.topic_summary_writes import write_consolidation
from service import erasure
from service.memory import Memory
from service.pipeline import Pipeline
from tests.integration.helpers import seed

TENANT = "tenant-a"
USER = "u-race"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
TARGET = "erase-target-7f3"  # the deleted Message: no other string contains it


def msg(mid: str, content: str, minute: int, session: str = "s1", **meta: Any) -> dict[str, Any]:
    return {
        "id": mid,
        "userId": USER,
        "sessionId": session,
        "role": "user",
        "content": content,
        "timestamp": (T0 + timedelta(minutes=minute)).isoformat(),
        "metadata": meta,
    }


async def store(memory: Memory, items: list[dict[str, Any]]) -> None:
    """Store Messages without processing them (they stay pending)."""
    await Memory(memory.db, memory.settings, None).add_messages(TENANT, items)


class Pause:
    """Holds the first call of a pipeline step (a method of the pipeline, or of what it
    holds: "consolidation._embed_summaries") until `go` is set."""

    def __init__(self, pipeline: Pipeline, step: str, monkeypatch: pytest.MonkeyPatch) -> None:
        self.reached = asyncio.Event()
        self.go = asyncio.Event()
        *path, step = step.split(".")
        owner = functools.reduce(getattr, path, pipeline)
        original = getattr(owner, step)

        async def paused(*args: Any, **kwargs: Any) -> Any:
            if not self.reached.is_set():
                self.reached.set()
                await self.go.wait()
            return await original(*args, **kwargs)

        monkeypatch.setattr(owner, step, paused)


async def user_nodes(db: Database, user: str = USER) -> dict[str, int]:
    rows = await db.rows(
        "MATCH (n) WHERE n.user_id = $u UNWIND labels(n) AS l RETURN l, count(*) AS n", u=user
    )
    return {r["l"]: r["n"] for r in rows}


async def derived(db: Database, user: str = USER) -> list[dict[str, Any]]:
    """Every Fact, Summary, Topic and Entity of the user, whatever its validity."""
    rows = await db.rows(
        """MATCH (n) WHERE (n:Fact OR n:Summary OR n:Topic OR n:Entity) AND n.user_id = $u
        RETURN labels(n)[0] AS label, properties(n) AS props""",
        u=user,
    )
    return [native(r) for r in rows]


def traces(nodes: list[dict[str, Any]], *needles: str) -> list[tuple[str, str, str]]:
    return [
        (n["label"], key, needle)
        for n in nodes
        for key, value in n["props"].items()
        for needle in needles
        if needle in str(value)
    ]


async def facts(db: Database) -> list[dict[str, Any]]:
    rows = await db.rows(
        """MATCH (f:Fact) WHERE f.user_id = $u
        RETURN f {.fact_id, .content, .source_message_ids, .session_ids, .anchors,
          .time_start, .time_end, sources: [(f)-[:SOURCE]->(m) | m.message_id]} AS f""",
        u=USER,
    )
    return [native(r["f"]) for r in rows]


async def statuses(db: Database) -> dict[str, str]:
    rows = await db.rows(
        "MATCH (m:Message) WHERE m.user_id = $u RETURN m.message_id AS id, m.status AS s", u=USER
    )
    return {r["id"]: r["s"] for r in rows}


FIRST = [
    msg("a1", "I am vegetarian.", 0),
    msg("a2", "I prefer window seats.", 1),
]
SECOND = [
    msg("b1", "I live in Berlin and I work as a nurse.", 10, "s2"),
    msg("b2", "My budget for the new laptop is 1200 dollars.", 11, "s2"),
]


@pytest.mark.parametrize("step", ["unit._extract", "consolidation._embed_summaries"])
async def test_forget_user_fences_a_run_of_another_process(
    memory: Memory,
    other: Pipeline,
    step: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="service.pipeline")
    await memory.add_messages(TENANT, FIRST)  # processed: Facts, Topics, Summaries exist
    await store(memory, SECOND)
    pause = Pause(other, step, monkeypatch)
    run = asyncio.create_task(other.process_user(TENANT, USER))
    await asyncio.wait_for(pause.reached.wait(), 120)  # the run has read its Messages

    counts = await erasure.forget_user(memory, TENANT, USER)
    assert counts["remaining"] == 0 and counts["Message"] == 4
    assert await user_nodes(memory.db) == {}

    pause.go.set()
    report = await asyncio.wait_for(run, 120)
    assert await user_nodes(memory.db) == {}, "nothing of the user came back"
    assert report.messages == 0, "the fenced run wrote nothing and found nothing to redo"
    assert "fenced by a deletion" in caplog.text


@pytest.mark.parametrize(
    ("step", "facts_deleted", "processed"),
    [
        ("unit._extract", 0, 2),  # the target is still pending; the run starts over without it
        ("consolidation._embed_summaries", 1, 3),  # its fact is written; consolidation is redone
    ],
)
async def test_delete_message_fences_a_run_then_the_rest_is_processed(
    memory: Memory,
    other: Pipeline,
    step: str,
    facts_deleted: int,
    processed: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    await store(memory, [*FIRST, msg(TARGET, "I am allergic to peanuts.", 2)])
    pause = Pause(other, step, monkeypatch)
    run = asyncio.create_task(other.process_user(TENANT, USER))
    await asyncio.wait_for(pause.reached.wait(), 120)

    _, counts = await erasure.delete_message(memory, TENANT, TARGET)
    assert counts["messages"] == 1 and counts["facts"] == facts_deleted

    pause.go.set()
    report = await asyncio.wait_for(run, 120)
    assert report.messages == processed
    assert await statuses(memory.db) == {"a1": "processed", "a2": "processed"}
    contents = [f["content"] for f in await facts(memory.db)]
    assert any("vegetarian" in c for c in contents)
    assert not any("peanut" in c for c in contents)
    nodes = await derived(memory.db)
    assert any(n["label"] == "Summary" for n in nodes)
    assert traces(nodes, TARGET, "peanut") == []


async def test_deletion_waits_for_processing_in_the_same_process(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    await store(memory, [*FIRST, msg(TARGET, "I am allergic to peanuts.", 2)])
    assert memory.pipeline is not None
    pause = Pause(memory.pipeline, "unit._extract", monkeypatch)
    run = asyncio.create_task(memory.pipeline.process_user(TENANT, USER))
    await asyncio.wait_for(pause.reached.wait(), 120)
    delete = asyncio.create_task(erasure.delete_message(memory, TENANT, TARGET))
    await asyncio.sleep(0.5)
    assert not delete.done(), "the deletion waits for the user's running processing"
    pause.go.set()
    assert (await asyncio.wait_for(run, 120)).messages == 3
    _, counts = await asyncio.wait_for(delete, 120)
    assert counts["facts"] == 1, "the peanut fact, written by the run, went with it"
    assert traces(await derived(memory.db), TARGET, "peanut") == []


async def test_kept_fact_and_summaries_lose_every_trace(memory: Memory) -> None:
    same = "I am vegetarian."
    # two batches: the stored Fact gains the second source; its Summary gets a version
    await memory.add_messages(TENANT, [msg(TARGET, same, 0, "s-old-9c1", order_id="ORD-TARGET-81")])
    await memory.add_messages(
        TENANT,
        [
            msg("keep-1", same, 60 * 24, "s-new"),
            msg("other-1", "I prefer window seats.", 60 * 24 + 1, "s-new"),
        ],
    )
    before = next(f for f in await facts(memory.db) if "vegetarian" in f["content"])
    assert sorted(before["sources"]) == sorted([TARGET, "keep-1"])
    assert before["anchors"] == ["order:ORD-TARGET-81"]
    needles = (TARGET, "ORD-TARGET-81", "s-old-9c1")
    assert traces(await derived(memory.db), *needles), "the test is about something"

    found, counts = await erasure.delete_message(memory, TENANT, TARGET)
    assert found.plan.kept_facts == [before["fact_id"]] and counts["facts"] == 0

    after = next(f for f in await facts(memory.db) if f["fact_id"] == before["fact_id"])
    assert after["sources"] == ["keep-1"] and after["source_message_ids"] == ["keep-1"]
    assert after["session_ids"] == ["s-new"] and after["anchors"] == []
    assert after["time_start"] == after["time_end"] == T0 + timedelta(days=1)
    nodes = await derived(memory.db)
    assert traces(nodes, *needles) == []
    summaries = [n["props"] for n in nodes if n["label"] == "Summary"]
    assert summaries and any("keep-1" in s["evidence_json"] for s in summaries)


async def test_identical_facts_keep_all_their_sources(memory: Memory) -> None:
    same = "I am vegetarian."
    await memory.add_messages(TENANT, [msg("d1", same, 0), msg("d2", same, 1, "s2")])
    (fact,) = [f for f in await facts(memory.db) if "vegetarian" in f["content"]]
    assert sorted(fact["sources"]) == ["d1", "d2"]
    assert fact["source_message_ids"] == ["d1", "d2"]
    assert fact["session_ids"] == ["s1", "s2"]
    await memory.add_messages(TENANT, [msg("d3", same, 5, "s3")])
    (fact,) = [f for f in await facts(memory.db) if "vegetarian" in f["content"]]
    assert sorted(fact["sources"]) == ["d1", "d2", "d3"]
    assert sorted(fact["source_message_ids"]) == ["d1", "d2", "d3"]
    _, counts = await erasure.delete_message(memory, TENANT, "d1")
    (fact,) = [f for f in await facts(memory.db) if "vegetarian" in f["content"]]
    assert counts["facts"] == 0 and sorted(fact["sources"]) == ["d2", "d3"]


async def test_a_stale_token_writes_nothing(memory: Memory) -> None:
    await store(memory, [*FIRST, msg(TARGET, "I am allergic to peanuts.", 2)])
    token = await user_token(memory.db, TENANT, USER)
    pending = await pending_messages(memory.db, TENANT, USER)
    assert token is not None and len(pending) == 3
    await erasure.delete_message(memory, TENANT, TARGET)
    assert await user_token(memory.db, TENANT, USER) != token

    ok = [m for m in pending if m.message_id != TARGET]  # even facts of kept Messages
    draft = FactDraft(
        content="The user is vegetarian",
        kind="preference",
        source_message_ids=(ok[0].message_id,),
        time_start=ok[0].timestamp,
        time_end=ok[0].timestamp,
        lang="en",
        key="preference:diet",
    )
    new = [NewFact("f_stale", draft, None)]
    with pytest.raises(Fenced):
        await write_facts(memory.db, TENANT, USER, new, {m.message_id: None for m in ok}, token)
    with pytest.raises(Fenced):
        await write_consolidation(
            memory.db,
            TENANT,
            USER,
            topics=[],
            assign=[],
            summaries=[],
            retire=[],
            started=datetime.now(UTC),
            token=token,
        )
    assert await facts(memory.db) == []
    assert await statuses(memory.db) == {"a1": "pending", "a2": "pending"}

    # forgetting changes it too, and a user re-created later never matches an old token
    fresh = await user_token(memory.db, TENANT, USER)
    await erasure.forget_user(memory, TENANT, USER)
    assert await user_token(memory.db, TENANT, USER) is None
    await store(memory, FIRST)
    again = await user_token(memory.db, TENANT, USER)
    assert again is not None and again not in (token, fresh)


async def test_kept_behaviour_fact_loses_what_the_deleted_event_brought(memory: Memory) -> None:
    events = seed("zh")
    e6 = next(m for m in events if m["id"] == "e6")
    e6["metadata"] = {**e6["metadata"], "order_id": "ORD-EV-6"}
    await memory.add_messages(TENANT, events)
    (light,) = await memory.db.rows(
        """MATCH (:Message {message_id: 'e6'})<-[:SOURCE]-(f:Fact)
        RETURN f.fact_id AS id, f.anchors AS anchors"""
    )
    assert light["anchors"] == ["order:ORD-EV-6"], "the test is about something"
    _, counts = await erasure.delete_message(memory, TENANT, "e6")
    assert counts["facts"] == 0 and counts["kept_facts"] == 1
    nodes = await derived(memory.db, "u-seed")
    assert traces(nodes, "ORD-EV-6") == []
    for n in nodes:
        ids = n["props"].get("source_message_ids") or []
        evidence = json.loads(n["props"].get("evidence_json") or "{}")
        assert "e6" not in ids and "e6" not in evidence.get("message_ids", [])
    kept = next(n["props"] for n in nodes if n["props"].get("fact_id") == light["id"])
    e5 = datetime.fromisoformat(next(m for m in events if m["id"] == "e5")["timestamp"])
    assert kept["source_message_ids"] == ["e5"] and kept["anchors"] == []
    assert kept["time_start"] == kept["time_end"] == e5


async def test_a_write_waiting_on_the_deletions_lock_sees_its_token(memory: Memory) -> None:
    """The fence reads the token after it holds the User lock: a run's write that starts
    while a deletion's transaction is open waits for it, then writes nothing."""
    await store(memory, FIRST)
    token = await user_token(memory.db, TENANT, USER)
    pending = await pending_messages(memory.db, TENANT, USER)
    draft = FactDraft(
        content="The user is vegetarian",
        kind="preference",
        source_message_ids=("a1",),
        time_start=T0,
        time_end=T0,
        lang="en",
        key="preference:diet",
    )
    async with memory.db.driver.session(database=memory.db.database) as session:
        tx = await session.begin_transaction()
        await tx.run(query("bump_generation"), user_uid=user_uid(TENANT, USER))
        write = asyncio.create_task(
            write_facts(
                memory.db,
                TENANT,
                USER,
                [NewFact("f_waiting", draft, None)],
                {m.message_id: None for m in pending},
                token,
            )
        )
        await asyncio.sleep(1.0)
        assert not write.done(), "the run's write waits for the deletion's lock"
        await tx.commit()
    with pytest.raises(Fenced):
        await asyncio.wait_for(write, 60)
    assert await facts(memory.db) == []
    assert set((await statuses(memory.db)).values()) == {"pending"}
