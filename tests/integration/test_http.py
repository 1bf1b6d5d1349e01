"""Over real HTTP: uvicorn on loopback, the typed client and the CLI, and the worker."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import uvicorn

from api.app import create_app
from core.errors import AuthError, InputError
from core.settings import Settings
from doors.cli import main as cli
from gumem.client import Client
from service.memory import Memory
from service.runtime import Runtime
from tests.integration.helpers import ADD, free_port, seed, served


@pytest.fixture
def server(settings: Settings, memory: Memory) -> Iterator[str]:
    port = free_port()
    app = create_app(settings.model_copy(update={"port": port}))
    with served(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")):
        yield f"http://127.0.0.1:{port}/graphql"


def test_seed_over_http_with_client_and_cli(
    server: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with Client(server, "key-a") as c:
        res = c.add_messages(seed("en"))
        assert len(res["accepted"]) == 10 and res["errors"] == []
        mem = c.memory(
            "u-seed-en", "any more shoe picks from yesterday?", now="2026-12-01T10:00:00+08:00"
        )
        assert mem["midTermContext"][0]["kind"] == "summary"
        for word in ("800", "42", "light", "cushioned", "carbon"):
            assert word in mem["formattedContext"]
        trace = c.trace(mem["midTermContext"][0]["id"])
        assert {n["label"] for n in trace["nodes"]} >= {"Summary", "Fact", "Message"}
    with pytest.raises(AuthError), Client(server, "bad-key") as c:
        c.memory("u-seed-en", "shoes")
    lines = tmp_path / "more.jsonl"
    lines.write_text("\n".join(json.dumps(m) for m in seed("zh")))
    assert cli(["ingest", str(lines), "--url", server, "--key", "key-a", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["accepted"] == 10
    assert (
        cli(
            [
                "recall",
                "昨天看的鞋还有推荐吗？",
                "--user",
                "u-seed",
                "--url",
                server,
                "--key",
                "key-a",
                "--now",
                "2026-12-01T10:00:00+08:00",
            ]
        )
        == 0
    )
    assert "42" in capsys.readouterr().out


async def test_async_mode_queues_then_worker_processes(settings: Settings, memory: Memory) -> None:
    assert memory.pipeline is not None
    queued = Memory(
        memory.db, settings.model_copy(update={"process_mode": "async"}), memory.pipeline
    )
    res = await queued.add_messages("tenant-a", seed("zh"))
    assert res.processed == 0 and len(res.accepted) == 10
    rows = await memory.db.rows("MATCH (m:Message) RETURN collect(DISTINCT m.status) AS s")
    assert rows[0]["s"] == ["pending"]
    rt = Runtime(settings)
    rt._memory = memory  # the worker of a restarted API on the same store
    rt.start_worker()
    try:
        for _ in range(300):
            rows = await memory.db.rows(
                "MATCH (m:Message {status: 'pending'}) RETURN count(m) AS n"
            )
            if rows[0]["n"] == 0:
                break
            await asyncio.sleep(0.2)
    finally:
        rt._memory = None
        await rt.close()
    rows = await memory.db.rows("MATCH (m:Message) RETURN collect(DISTINCT m.status) AS s")
    assert rows[0]["s"] == ["processed"]
    rows = await memory.db.rows("MATCH (s:Summary {validity: 'active'}) RETURN count(s) AS n")
    assert rows[0]["n"] >= 1


async def test_api_without_worker_leaves_the_queue_alone(
    settings: Settings, memory: Memory
) -> None:
    off = settings.model_copy(update={"process_mode": "async", "run_worker": False})
    app = create_app(off)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
            r = await c.post(
                "/graphql",
                json={"query": ADD, "variables": {"m": seed("en")}},
                headers={"Authorization": "Bearer key-a"},
            )
            assert len(r.json()["data"]["addMessages"]["accepted"]) == 10
            await asyncio.sleep(2.5)  # the worker would have polled twice by now
    rows = await memory.db.rows("MATCH (m:Message) RETURN collect(DISTINCT m.status) AS s")
    assert rows[0]["s"] == ["pending"]


def test_messages_query_pages_a_session_oldest_first(server: str) -> None:
    batch = [
        {
            "id": f"hist-{i}",
            "userId": "u-hist",
            "sessionId": "s-a" if i % 2 == 0 else "s-b",
            "role": "user",
            "content": f"turn number {i}",
            # stored out of order: the query orders by time
            "timestamp": f"2026-11-0{9 - i}T10:00:00+00:00",
        }
        for i in range(6)
    ]
    with Client(server, "key-a") as c:
        assert c.add_messages(batch)["errors"] == []
        every = c.messages("u-hist")
        assert [m.id for m in every] == [f"hist-{i}" for i in (5, 4, 3, 2, 1, 0)]
        a = c.messages("u-hist", "s-a")
        assert [m.id for m in a] == ["hist-4", "hist-2", "hist-0"]
        assert all(m.session_id == "s-a" and m.user_id == "u-hist" for m in a)
        assert [m.id for m in c.messages("u-hist", "s-a", limit=2, offset=1)] == [
            "hist-2",
            "hist-0",
        ]
        with pytest.raises(InputError) as err:
            c.messages("u-hist", limit=0)
        assert err.value.field == "limit"
    with Client(server, "key-b") as c:
        assert c.messages("u-hist") == []
