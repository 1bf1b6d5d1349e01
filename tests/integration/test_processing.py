"""Read-your-writes while workers process (issue 19), over GraphQL on the real Neo4j:
`processing(ids)` tells each Message's status (pending → processed, failed, not_found,
scoped by tenant and userId), and `addMessages(wait: true)` in async mode answers once
another worker has processed the batch, or says it timed out."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Any

import httpx
import pytest

from api.app import create_app
from core.settings import Settings
from service.extractor import Extractor
from service.memory import Memory
from service.pipeline import Pipeline
from service.runtime import Runtime
from tests.integration.helpers import A, B, gql
from tests.unit.extraction_hooks import POISON, hooked

PROCESSING = """query($ids: [ID!]!, $u: String) { processing(ids: $ids, userId: $u) {
  id status userId processedAt attempts reason nextAttemptAt } }"""

ADD_WAIT = """mutation($m: [MessageInput!]!, $w: Boolean!, $s: Float) {
  addMessages(messages: $m, wait: $w, waitSeconds: $s) {
    accepted duplicates processed timedOut errors { index field reason } } }"""

WAIT_BOUND_S = 120.0  # generous: the machine may be loaded


def turns(user: str, n: int = 4, prefix: str = "p") -> list[dict[str, Any]]:
    lines = [
        "I live in Lisbon and work as a nurse.",
        "My sister Ana is visiting next week.",
        "I'm allergic to peanuts.",
        "I prefer trains over planes for trips under five hours.",
    ]
    return [
        {
            "id": f"{prefix}-{user}-{i}",
            "userId": user,
            "sessionId": "s-1",
            "role": "user",
            "content": lines[i % len(lines)],
            "timestamp": f"2026-11-30T10:{i:02d}:00+00:00",
        }
        for i in range(n)
    ]


def async_settings(settings: Settings, **update: Any) -> Settings:
    return settings.model_copy(
        update={"process_mode": "async", "max_wait_s": WAIT_BOUND_S, **update}
    )


@asynccontextmanager
async def api(
    s: Settings, memory: Memory, pipeline: Pipeline | None = None
) -> AsyncIterator[httpx.AsyncClient]:
    """An API process in async mode on the test store, running no worker of its own."""
    rt = Runtime(s)
    mem = Memory(memory.db, s, pipeline or memory.pipeline)
    rt._memory = mem
    app = create_app(s, rt)
    try:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            yield c
    finally:
        rt._memory = None
        mem.close()


@asynccontextmanager
async def worker(s: Settings, memory: Memory) -> AsyncIterator[Pipeline]:
    """Another worker on the same Neo4j: a pipeline of its own (its own lease owner), its
    supervised loop running as `gumem worker` runs it."""
    assert memory.pipeline is not None
    pipeline = Pipeline(memory.db, s, memory.pipeline.models, memory.pipeline.extractor)
    rt = Runtime(s)
    mem = Memory(memory.db, s, pipeline)
    rt._memory = mem
    rt.start_worker()
    try:
        yield pipeline
    finally:
        rt._memory = None
        await rt.close()  # stops the loop only: the store and the extractor are shared
        mem.close()


async def processing(
    c: httpx.AsyncClient, ids: list[str], user: str | None = None, headers: dict[str, str] = A
) -> dict[str, dict[str, Any]]:
    body = await gql(c, PROCESSING, headers, ids=ids, u=user)
    assert "errors" not in body, body
    rows: list[dict[str, Any]] = body["data"]["processing"]
    assert [r["id"] for r in rows] == list(dict.fromkeys(ids))  # the order asked, once each
    return {r["id"]: r for r in rows}


async def add(c: httpx.AsyncClient, batch: list[dict[str, Any]], **args: Any) -> dict[str, Any]:
    body = await gql(c, ADD_WAIT, A, m=batch, w=args.get("wait", False), s=args.get("s"))
    assert "errors" not in body, body
    out: dict[str, Any] = body["data"]["addMessages"]
    return out


async def test_processing_pending_then_processed(settings: Settings, memory: Memory) -> None:
    assert memory.pipeline is not None
    s = async_settings(settings)
    batch = turns("u-p1")
    ids = [m["id"] for m in batch]
    async with api(s, memory) as c:
        res = await add(c, batch)
        assert res["accepted"] == ids and res["processed"] == 0 and res["timedOut"] is False
        before = await processing(c, [*ids, ids[0]])
        for r in before.values():
            assert r["status"] == "pending" and r["userId"] == "u-p1"
            assert r["processedAt"] is None and r["attempts"] == 0 and r["reason"] is None
        stored = time.time()
        assert await memory.pipeline.process_users("tenant-a", ["u-p1"]) == len(ids)
        after = await processing(c, ids)
    for r in after.values():
        assert r["status"] == "processed" and r["reason"] is None
        processed_at = datetime.fromisoformat(r["processedAt"])
        assert processed_at.tzinfo is not None
        assert stored - 60 <= processed_at.timestamp() <= time.time() + 1


async def test_processing_failed_with_its_reason(settings: Settings, memory: Memory) -> None:
    """A Message whose extraction raises stays pending until its retry is due (attempts,
    reason, nextAttemptAt), then fails for good once its attempts are spent, saying why."""
    assert memory.pipeline is not None
    s = async_settings(settings, extract_mode="thread", max_attempts=2, retry_backoff_s=1.0)
    hooked_pipeline = Pipeline(
        memory.db, s, memory.pipeline.models, Extractor(s, fn=hooked, models=memory.pipeline.models)
    )
    batch = turns("u-p2", 2)
    batch[1]["content"] = f"{POISON} this turn cannot be read"
    ok, bad = batch[0]["id"], batch[1]["id"]
    async with api(s, memory, hooked_pipeline) as c:
        await add(c, batch)
        await hooked_pipeline.process_users("tenant-a", ["u-p2"])
        first = await processing(c, [ok, bad])
        assert first[ok]["status"] == "processed"
        assert first[bad]["status"] == "pending"  # one attempt failed, a retry is due later
        assert first[bad]["attempts"] == 1 and first[bad]["processedAt"] is None
        assert first[bad]["reason"] == "extraction_error:ValueError"
        assert first[bad]["nextAttemptAt"] is not None
        assert POISON not in str(first)  # no content in a status
        # the last attempt, once due: it fails for good
        due = datetime.fromisoformat(first[bad]["nextAttemptAt"]).timestamp()
        await asyncio.sleep(max(due - time.time(), 0) + 0.2)
        await hooked_pipeline.process_users("tenant-a", ["u-p2"])
        final = (await processing(c, [bad]))[bad]
    assert final["status"] == "failed" and final["attempts"] == 2
    assert final["reason"] == "extraction_error:ValueError"
    assert final["processedAt"] is not None and final["nextAttemptAt"] is None


async def test_processing_unknown_and_foreign_ids_are_not_found(
    settings: Settings, memory: Memory
) -> None:
    s = async_settings(settings)
    mine, theirs = turns("u-p3", 2), turns("u-p4", 2)
    async with api(s, memory) as c:
        await add(c, mine + theirs)
        other = turns("u-p3", 1, prefix="b")  # tenant-b's own Message, same user name
        body = await gql(c, ADD_WAIT, B, m=other, w=False, s=None)
        assert body["data"]["addMessages"]["accepted"] == [other[0]["id"]]
        asked = [mine[0]["id"], theirs[0]["id"], "no-such-message", other[0]["id"]]
        # the tenant's view: its own two users, never tenant-b's
        seen = await processing(c, asked)
        assert [seen[i]["status"] for i in asked] == ["pending", "pending"] + ["not_found"] * 2
        nf = seen["no-such-message"]
        assert nf["userId"] is None and nf["processedAt"] is None and nf["attempts"] == 0
        # one user's view: another user's Message is not found
        one = await processing(c, asked, user="u-p3")
        assert [one[i]["status"] for i in asked] == ["pending"] + ["not_found"] * 3
        # tenant-b sees only its own
        b = await processing(c, asked, headers=B)
        assert [b[i]["status"] for i in asked] == ["not_found"] * 3 + ["pending"]
        assert b[other[0]["id"]]["userId"] == "u-p3"
        # an empty question, a bad id, too many ids
        assert await processing(c, []) == {}
        bad = await gql(c, PROCESSING, A, ids=["has space"], u=None)
        assert bad["data"] is None and "ids" in bad["errors"][0]["message"]
        many = [f"x{i}" for i in range(s.max_batch + 1)]
        over = await gql(c, PROCESSING, A, ids=many, u=None)
        assert over["data"] is None
        assert "GUMEM_MAX_BATCH" in over["errors"][0]["message"]


async def test_wait_returns_once_another_worker_processed_the_batch(
    settings: Settings, memory: Memory
) -> None:
    s = async_settings(settings)
    batch = turns("u-w1", 6)
    ids = [m["id"] for m in batch]
    async with worker(s, memory) as other, api(s, memory) as c:
        started = time.monotonic()
        res = await add(c, batch, wait=True, s=WAIT_BOUND_S)
        took = time.monotonic() - started
        assert res["accepted"] == ids and res["errors"] == []
        assert res["timedOut"] is False and res["processed"] == 0  # this call processed none
        # answered with every Message processed, by the other worker, exactly once
        seen = await processing(c, ids)
        assert {r["status"] for r in seen.values()} == {"processed"}
        rows = await memory.db.rows(
            "MATCH (m:Message) WHERE m.message_id IN $ids"
            " RETURN m.processed_by AS by, m.processed_count AS n",
            ids=ids,
        )
        assert {(r["by"], r["n"]) for r in rows} == {(other.owner, 1)}
        # sending the batch again waits for its (processed) duplicates: at once
        again = await add(c, batch, wait=True)
        assert again["duplicates"] == ids and again["timedOut"] is False
    assert took < WAIT_BOUND_S


async def test_wait_with_a_tiny_bound_times_out_and_says_so(
    settings: Settings, memory: Memory
) -> None:
    s = async_settings(settings)
    batch = turns("u-w2", 3)
    async with api(s, memory) as c:  # no worker runs: nothing can process the batch
        started = time.monotonic()
        res = await add(c, batch, wait=True, s=0.2)
        took = time.monotonic() - started
        assert res["timedOut"] is True and len(res["accepted"]) == 3
        seen = await processing(c, res["accepted"])
        assert {r["status"] for r in seen.values()} == {"pending"}  # durable, still queued
    assert took < 20  # the bound, one poll and the store; not the 120 s maximum


@pytest.mark.parametrize("bound", [WAIT_BOUND_S + 1, 0.0, -1.0])
async def test_wait_bound_out_of_range_names_the_field(
    settings: Settings, memory: Memory, bound: float
) -> None:
    s = async_settings(settings)
    batch = turns("u-w3", 2)
    async with api(s, memory) as c:
        res = await add(c, batch, wait=True, s=bound)
        assert res["accepted"] == [] and res["timedOut"] is False
        [err] = res["errors"]
        assert err["field"] == "waitSeconds" and err["index"] is None
        assert "GUMEM_MAX_WAIT_S" in err["reason"] and f"{WAIT_BOUND_S:g}" in err["reason"]
        seen = await processing(c, [m["id"] for m in batch])
        assert {r["status"] for r in seen.values()} == {"not_found"}  # nothing stored


async def test_wait_changes_nothing_in_sync_mode(client: httpx.AsyncClient) -> None:
    batch = turns("u-w4", 3)
    body = await gql(client, ADD_WAIT, A, m=batch, w=True, s=None)
    res = body["data"]["addMessages"]
    assert res["processed"] == 3 and res["timedOut"] is False  # processed by this call
    seen = await processing(client, res["accepted"])
    assert {r["status"] for r in seen.values()} == {"processed"}
