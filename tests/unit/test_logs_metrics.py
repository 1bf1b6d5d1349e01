"""Log lines (text or JSON, with the request id; no query strings) and the metrics the
layers record: Neo4j failures, worker restarts, timings of the calls that return."""

from __future__ import annotations

import asyncio
import json
import logging
import math
import sys
from typing import Any

import httpx
import pytest
from neo4j.exceptions import ServiceUnavailable
from prometheus_client import REGISTRY, Histogram
from starlette.requests import Request
from starlette.responses import Response

from api.metrics import refresh_queue
from core import logs
from core.errors import StorageUnavailable
from core.metrics import timed
from core.settings import Settings
from graph.db import Database
from service.runtime import Runtime
from service.worker import Supervisor, WorkerStatus
from web.edge import AccessLog


def value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def record(msg: str, *args: object, **extra: Any) -> logging.LogRecord:
    r = logging.LogRecord("gumem.test", logging.INFO, __file__, 1, msg, args, None)
    r.__dict__.update(extra)
    return r


def test_json_lines_carry_the_request_id_and_access_fields() -> None:
    token = logs.REQUEST_ID.set("req-7")
    try:
        r = record("%s %s", "GET", "/graphql", method="GET", path="/graphql", status=200)
        assert logs.RequestId().filter(r)
    finally:
        logs.REQUEST_ID.reset(token)
    line = json.loads(logs.JsonLines().format(r))
    assert line["request_id"] == "req-7" and line["message"] == "GET /graphql"
    assert (line["method"], line["path"], line["status"]) == ("GET", "/graphql", 200)
    assert line["level"] == "INFO" and line["time"].endswith("+00:00")
    try:
        raise ValueError("boom")
    except ValueError:
        r = record("failed")
        r.exc_info = sys.exc_info()
    assert "ValueError" in json.loads(logs.JsonLines().format(r))["exc"]


def test_text_lines_carry_the_request_id_or_a_dash() -> None:
    r = record("hello")
    logs.RequestId().filter(r)
    assert logging.Formatter(logs.TEXT_FORMAT).format(r).endswith("gumem.test [-]: hello")


def test_uvicorns_access_line_loses_its_query_string() -> None:
    r = record('%s - "%s %s HTTP/%s" %d', "1.2.3.4:5", "GET", "/graphql?query=secret", "1.1", 200)
    logs.NoQueryString().filter(r)
    assert r.getMessage() == '1.2.3.4:5 - "GET /graphql HTTP/1.1" 200'


def test_configure_leaves_a_host_applications_handlers_alone() -> None:
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    mine = logging.NullHandler()
    root.handlers[:] = [mine]
    try:
        logs.configure("json", logging.DEBUG)
        assert root.handlers == [mine] and root.level == saved[1]
        assert logging.getLogger("neo4j").level == logging.WARNING
        root.handlers[:] = []
        logs.configure("json", logging.DEBUG)
        (ours,) = root.handlers
        assert isinstance(ours.formatter, logs.JsonLines) and root.level == logging.DEBUG
        logs.configure("text")  # again: replaced, not added
        (again,) = root.handlers
        assert again is not ours and not isinstance(again.formatter, logs.JsonLines)
    finally:
        root.handlers[:], _ = saved
        root.setLevel(saved[1])


async def test_access_log_ids_each_request_and_logs_no_query(
    caplog: pytest.LogCaptureFixture,
) -> None:
    seen: list[str | None] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.append(logs.REQUEST_ID.get())
        logging.getLogger("gumem.inner").info("inside")
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    caplog.set_level(logging.INFO)
    mw = AccessLog(app, routes={"/graphql"})
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=mw), base_url="http://t") as c:
        r = await c.get("/graphql?query=zq-secret", headers={"X-Request-ID": "abc-123"})
        assert r.headers["x-request-id"] == "abc-123" and seen[-1] == "abc-123"
        r = await c.get("/x/zq-secret", headers={"X-Request-ID": "bad id\twith spaces"})
        assert len(r.headers["x-request-id"]) == 32 and seen[-1] == r.headers["x-request-id"]
    assert logs.REQUEST_ID.get() is None  # reset after each request
    lines = [r.getMessage() for r in caplog.records if r.name == "gumem.access"]
    assert lines[0].startswith("GET /graphql 204 ") and lines[1].startswith("GET other 204 ")
    assert "zq-secret" not in caplog.text


async def test_timed_observes_the_calls_that_return() -> None:
    h = Histogram("gumem_test_seconds", "test", registry=None)

    @timed(h)
    async def work(fail: bool) -> int:
        if fail:
            raise ValueError
        return 1

    assert await work(False) == 1
    with pytest.raises(ValueError):
        await work(True)
    counts = {s.name: s.value for s in next(iter(h.collect())).samples}
    assert counts["gumem_test_seconds_count"] == 1


async def test_neo4j_failures_are_counted_by_kind() -> None:
    before = value("gumem_neo4j_failures_total", kind="unavailable")

    async def down() -> None:
        raise ServiceUnavailable("no route")

    with pytest.raises(StorageUnavailable):
        await Database(driver=None, database="neo4j")._guarded(down)  # type: ignore[arg-type]
    assert value("gumem_neo4j_failures_total", kind="unavailable") == before + 1


async def test_worker_restarts_are_counted() -> None:
    before = value("gumem_worker_restarts_total")
    calls = 0

    async def loop(stop: asyncio.Event) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RuntimeError("once")
        stop.set()

    await asyncio.wait_for(
        Supervisor(loop, WorkerStatus(), first_delay_s=0.01).run(asyncio.Event()), 5
    )
    assert value("gumem_worker_restarts_total") == before + 1


async def test_the_queue_is_unknown_before_the_runtime_started() -> None:
    rt = Runtime(Settings())
    await refresh_queue(rt)
    assert value("gumem_neo4j_up") == 0
    assert math.isnan(REGISTRY.get_sample_value("gumem_pending_messages") or 0.0)
    assert await rt.ready() == {"ready": False, "reason": "starting"}


async def test_metrics_answer_any_accept_header() -> None:
    from api.metrics import metrics

    async def get(accept: str) -> Response:
        scope = {"type": "http", "method": "GET", "path": "/metrics", "query_string": b""}
        scope["headers"] = [(b"accept", accept.encode())]
        return await metrics(Request(scope), Runtime(Settings()), key="")

    for accept in ("text/plain; version=x.y", "application/openmetrics-text; version=abc", ";;"):
        r = await get(accept)
        assert r.status_code == 200 and b"gumem_neo4j_up 0.0" in bytes(r.body)
    r = await get("application/openmetrics-text; version=1.0.0")
    assert r.media_type is not None and r.media_type.startswith("application/openmetrics-text")
