"""Failure isolation: a Message that fails (an error, past its time budget, a fact that
cannot be written) fails alone, with a typed reason, a retry count and a backoff; failed
Messages are listed and re-queued; no content reaches the logs; /health answers while a
message runs past its budget."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from core.settings import Settings
from doors.cli import main as cli
from service.extractor import Extractor
from service.memory import Memory
from service.pipeline import Pipeline
from service.runtime import Runtime
from tests.integration.helpers import A, B, gql
from tests.integration.test_http import server  # noqa: F401  (uvicorn on loopback)
from tests.unit.extraction_hooks import BAD_FACT, HOURS, POISON, SLOW, hooked

SECRET = "zq-secret-4471-passport"  # must never reach a log line


def msg(i: int, content: str, user: str = "u-f", **extra: Any) -> dict[str, Any]:
    return {
        "id": f"f-{user}-{i}",
        "userId": user,
        "sessionId": "s-1",
        "role": "user",
        "content": content,
        "timestamp": f"2026-11-30T10:{i:02d}:00+08:00",
        **extra,
    }


@pytest.fixture
async def hooked_memory(settings: Settings, memory: Memory) -> AsyncIterator[Memory]:
    """The store of `memory`, processing through the test hooks, one process, 3 s budget,
    two attempts, a 1 s backoff; storing only (the tests process by hand)."""
    assert memory.pipeline is not None
    s = settings.model_copy(
        update={
            "extract_processes": 1,
            "extract_timeout_s": 3.0,
            "max_attempts": 2,
            "retry_backoff_s": 1.0,
            "process_mode": "async",
        }
    )
    pipeline = Pipeline(memory.db, s, memory.pipeline.models, Extractor(s, fn=hooked))
    yield Memory(memory.db, s, pipeline)
    await pipeline.extractor.close()


def quiet_driver(caplog: pytest.LogCaptureFixture) -> None:
    """Every level of GUMem's logs; the driver's as `gumem` configures it (its DEBUG
    lines carry query parameters)."""
    caplog.set_level(logging.DEBUG)
    caplog.set_level(logging.WARNING, logger="neo4j")


async def statuses(memory: Memory, user: str = "u-f") -> dict[str, dict[str, Any]]:
    rows = await memory.db.rows(
        """MATCH (m:Message {user_id: $u})
        RETURN m.message_id AS id, m.status AS status, m.fail_reason AS reason,
          m.attempts AS attempts, m.next_attempt_at IS NOT NULL AS waits,
          COUNT { (m)<-[:SOURCE]-(:Fact) } AS facts""",
        u=user,
    )
    return {r["id"]: r for r in rows}


async def test_each_message_fails_alone_then_is_listed_and_requeued(
    hooked_memory: Memory,
    memory: Memory,
    client: httpx.AsyncClient,
    caplog: pytest.LogCaptureFixture,
    capfd: pytest.CaptureFixture[str],
) -> None:
    quiet_driver(caplog)
    p = hooked_memory.pipeline
    assert p is not None
    await hooked_memory.add_messages(
        "tenant-a",
        [
            msg(1, "I live in Berlin."),
            msg(2, f"{POISON} my passport is {SECRET}"),
            msg(3, f"{SLOW} I like green tea."),
            msg(4, "I love jazz and I play the piano."),
        ],
    )
    report = await p.process_user("tenant-a", "u-f")
    assert report.messages == 2 and report.failed == 2
    st = await statuses(memory)
    assert st["f-u-f-1"]["status"] == "processed" and st["f-u-f-1"]["facts"] >= 1
    assert st["f-u-f-4"]["status"] == "processed" and st["f-u-f-4"]["facts"] >= 1
    poison, slow = st["f-u-f-2"], st["f-u-f-3"]
    assert poison["reason"] == "extraction_error:ValueError" and slow["reason"] == "timeout"
    for m in (poison, slow):  # attempt 1 of 2: waiting out its backoff
        assert m["status"] == "pending" and m["attempts"] == 1 and m["waits"]

    assert (await p.process_user("tenant-a", "u-f")).messages == 0  # not due yet
    await asyncio.sleep(1.2)
    assert await p.process_pending() == 0  # due again: both fail a second (last) time
    st = await statuses(memory)
    assert {st[i]["status"] for i in ("f-u-f-2", "f-u-f-3")} == {"failed"}
    assert st["f-u-f-2"]["attempts"] == 2 and not st["f-u-f-2"]["waits"]

    q = """query($u: String) { failedMessages(userId: $u) {
      id userId reason attempts lastAttemptAt } }"""
    body = await gql(client, q, u="u-f")
    failed = {f["id"]: f for f in body["data"]["failedMessages"]}
    assert set(failed) == {"f-u-f-2", "f-u-f-3"}
    assert failed["f-u-f-3"]["reason"] == "timeout" and failed["f-u-f-3"]["attempts"] == 2
    assert failed["f-u-f-2"]["lastAttemptAt"]
    assert (await gql(client, q, B, u=None))["data"]["failedMessages"] == []  # tenant-b

    retry = "mutation($ids: [ID!]!) { retryMessages(ids: $ids) }"
    assert (await gql(client, retry, B, ids=["f-u-f-2"]))["data"]["retryMessages"] == 0
    assert (await gql(client, retry, A, ids=["f-u-f-2"]))["data"]["retryMessages"] == 1
    await memory.drain(120)  # sync mode: re-queued Messages are processed at once
    st = await statuses(memory)
    assert st["f-u-f-2"]["status"] == "processed"  # the service's own extraction reads it
    all_of = "mutation($u: String!) { retryFailed(userId: $u) }"
    assert (await gql(client, all_of, B, u="u-f"))["data"]["retryFailed"] == 0
    assert (await gql(client, all_of, A, u="u-f"))["data"]["retryFailed"] == 1
    bad = await gql(client, retry, A, ids=["no spaces allowed"])
    assert bad["errors"][0]["extensions"]["code"] == "BAD_INPUT"
    await memory.drain(120)

    logged = caplog.text + "".join(capfd.readouterr())
    assert "extraction_error" in logged or "ValueError" in logged
    assert SECRET not in logged and POISON not in logged


async def test_a_failing_event_window_fails_no_chat_message(
    hooked_memory: Memory, memory: Memory
) -> None:
    p = hooked_memory.pipeline
    assert p is not None
    ev = {"role": "event", "eventType": "search"}
    await hooked_memory.add_messages(
        "tenant-a",
        [
            msg(1, "I live in Berlin."),
            msg(2, f"search: trail shoes {POISON}", **ev),
            msg(3, "search: trail shoes", **ev),
        ],
    )
    report = await p.process_user("tenant-a", "u-f")
    assert report.messages == 1 and report.failed == 2
    st = await statuses(memory)
    assert st["f-u-f-1"]["status"] == "processed"
    assert st["f-u-f-2"]["reason"] == st["f-u-f-3"]["reason"] == "extraction_error:ValueError"


async def test_a_fact_that_cannot_be_written_fails_its_message_alone(
    hooked_memory: Memory, memory: Memory, caplog: pytest.LogCaptureFixture
) -> None:
    quiet_driver(caplog)
    p = hooked_memory.pipeline
    assert p is not None
    await hooked_memory.add_messages(
        "tenant-a",
        [msg(1, "I live in Berlin."), msg(2, f"{BAD_FACT} {SECRET}"), msg(3, "I love jazz.")],
    )
    report = await p.process_user("tenant-a", "u-f")
    assert report.failed == 1 and report.messages == 2
    st = await statuses(memory)
    assert st["f-u-f-1"]["status"] == st["f-u-f-3"]["status"] == "processed"
    assert st["f-u-f-2"]["reason"].startswith("processing_error:")
    assert st["f-u-f-2"]["status"] == "pending" and st["f-u-f-2"]["attempts"] == 1
    assert SECRET not in caplog.text


async def test_health_answers_while_a_message_runs_for_hours(
    hooked_memory: Memory, client: httpx.AsyncClient
) -> None:
    """The hook runs a regex that backtracks for hours: in a thread of the API's process
    nothing could stop it (and it would take CPU and the GIL from every request, and be
    pending again after a restart); in a worker process it is killed at its budget, fails
    alone, and /health answers throughout."""
    p = hooked_memory.pipeline
    assert p is not None
    assert p is not None
    await p.extractor.run([])  # nothing: the pool starts lazily, with the first task
    await hooked_memory.add_messages(
        "tenant-a", [msg(1, f"{HOURS} I like tea."), msg(2, "I live in Berlin.")]
    )
    work = asyncio.create_task(p.process_user("tenant-a", "u-f"))
    waits: list[float] = []
    while not work.done():
        t0 = time.monotonic()
        r = await client.get("/health")
        waits.append(time.monotonic() - t0)
        assert r.status_code == 200 and r.json()["ok"] is True
        await asyncio.sleep(0.2)
    report = await work
    assert report.messages == 1 and report.failed == 1
    assert len(waits) >= 5, "processing ended before /health was asked"
    assert max(waits) < 2.0, f"/health took {max(waits):.2f} s"
    print(f"\n[health] {len(waits)} calls during processing, slowest {max(waits) * 1000:.0f} ms")


async def test_health_reports_worker_and_extraction(
    client: httpx.AsyncClient, settings: Settings, memory: Memory
) -> None:
    r = await client.get("/health")
    body = r.json()
    assert body["ok"] is True and body["worker"]["state"] == "stopped"
    assert body["extraction"]["mode"] == "process"
    g = await gql(client, "{ health { ok neo4j worker { state restarts lastError } } }")
    assert g["data"]["health"]["worker"]["state"] == "stopped"


async def test_worker_restarts_after_an_unexpected_error(
    settings: Settings, memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    rt = Runtime(settings.model_copy(update={"extract_processes": 1}))
    await rt.start(apply=False)
    pipeline = rt.memory.pipeline
    assert pipeline is not None
    real = pipeline.process_pending
    calls = 0

    async def broken_once(limit: int = 100, stop: asyncio.Event | None = None) -> int:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise KeyError(SECRET)
        return await real(limit, stop)

    monkeypatch.setattr(pipeline, "process_pending", broken_once)
    rt.start_worker()
    try:
        for _ in range(100):
            if pipeline.status.last_success is not None:
                break
            await asyncio.sleep(0.1)
        h = rt.health()["worker"]
        assert h["state"] == "running" and h["restarts"] == 1 and h["lastError"] == "KeyError"
        assert h["lastSuccess"] is not None
        assert datetime.fromisoformat(h["lastSuccess"]) <= datetime.now(UTC)
    finally:
        await rt.close()
    assert pipeline.status.state == "stopped"
    assert pipeline.extractor.status().processes == 0


async def test_cli_lists_and_requeues_failed_messages(
    server: str,  # noqa: F811  (the fixture imported above)
    memory: Memory,
    capsys: pytest.CaptureFixture[str],
) -> None:
    queued = Memory(memory.db, memory.settings.model_copy(update={"process_mode": "async"}))
    await queued.add_messages("tenant-a", [msg(1, "I live in Berlin."), msg(2, "I love jazz.")])
    async with memory.db.driver.session(database=memory.db.database) as s:
        # two Messages that failed every attempt, as the pipeline leaves them
        await (
            await s.run(
                """MATCH (m:Message {user_id: 'u-f'})
                SET m.status = 'failed', m.fail_reason = 'timeout', m.attempts = 3,
                  m.last_attempt_at = datetime()"""
            )
        ).consume()
    key = ["--url", server, "--key", "key-a"]
    assert await asyncio.to_thread(cli, ["failed", "list", "--user", "u-f", *key, "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert sorted(r["id"] for r in rows) == ["f-u-f-1", "f-u-f-2"]
    assert {r["reason"] for r in rows} == {"timeout"} and rows[0]["attempts"] == 3
    assert await asyncio.to_thread(cli, ["failed", "retry", "f-u-f-1", *key, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"requeued": 1}
    assert await asyncio.to_thread(cli, ["failed", "retry", "--user", "u-f", *key]) == 0
    assert "requeued: 1" in capsys.readouterr().out
    assert await asyncio.to_thread(cli, ["failed", "retry", *key]) == 2  # ids or --user
    for _ in range(600):  # the server processes what was re-queued (sync mode)
        st = await statuses(memory)
        if {m["status"] for m in st.values()} == {"processed"}:
            break
        await asyncio.sleep(0.2)
    assert {m["status"] for m in st.values()} == {"processed"}
