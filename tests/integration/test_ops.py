"""Operating GUMem: /metrics (Prometheus), /ready (503 until Neo4j answers, and while it
does not), request ids and access lines, and no query string or content in any log line.

The API runs in uvicorn on loopback, as `gumem serve` runs it (api.app.server_config).
Neo4j "down" is the real test Neo4j behind a TCP relay this test opens and closes."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
import time
from collections.abc import Iterator

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr

from api.app import create_app, server_config
from core import logs
from core.inputs import MAX_QUERY_CHARS
from core.settings import Settings
from service.extractor import Extractor
from service.memory import Memory
from service.pipeline import Pipeline
from service.runtime import Runtime
from tests.integration.helpers import ADD, A, free_port, gql, seed, served
from tests.unit.extraction_hooks import POISON, hooked

# an API of its own in these tests: extraction in a thread, no worker, no recall meter
LIGHT = {"extract_mode": "thread", "run_worker": False, "foreground_busy_rps": 0.0}
RECALL = """query($u: String!, $q: String!) { memory(userId: $u, query: $q,
  now: "2026-12-01T10:00:00+08:00") { formattedContext } }"""


def sample(text: str, name: str, **labels: str) -> float:
    """The value of one series in a scrape (0 if absent)."""
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == name and all(s.labels.get(k) == v for k, v in labels.items()):
                return float(s.value)
    return 0.0


async def scrape(c: httpx.AsyncClient, **headers: str) -> str:
    r = await c.get("/metrics", headers=headers)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    return r.text


async def test_metrics_show_the_queue_the_work_and_the_errors(
    client: httpx.AsyncClient, memory: Memory
) -> None:
    before = await scrape(client)
    r = await gql(client, ADD, m=seed("zh"))
    assert r["data"]["addMessages"]["processed"] == 10
    r = await gql(client, RECALL, u="u-seed", q="昨天看的鞋还有推荐吗？")
    assert "跑鞋" in r["data"]["memory"]["formattedContext"]
    r = await gql(client, RECALL, u="u-seed", q="鞋" * (MAX_QUERY_CHARS + 1))
    assert r["errors"][0]["extensions"]["code"] == "BAD_INPUT"
    # two Messages back in the queue, the older ingested an hour ago (no worker runs here)
    await memory.db.write_rows(
        """MATCH (m:Message {user_id: 'u-seed'}) WITH m ORDER BY m.message_id LIMIT 2
        SET m.status = 'pending', m.ingested_at = datetime() - duration('PT1H')"""
    )
    after = await scrape(client)

    def grew(name: str, **labels: str) -> float:
        return sample(after, name, **labels) - sample(before, name, **labels)

    assert sample(after, "gumem_pending_messages") == 2
    assert 3590 < sample(after, "gumem_oldest_pending_age_seconds") < 3600 + 600
    assert sample(after, "gumem_neo4j_up") == 1
    assert grew("gumem_messages_processed_total") >= 10
    assert grew("gumem_extraction_seconds_count") >= 1
    assert grew("gumem_consolidation_seconds_count") >= 1
    assert grew("gumem_recall_seconds_count") == 1  # the refused recall is not timed
    assert grew("gumem_recall_seconds_bucket", le="+Inf") == 1
    assert grew("gumem_graphql_errors_total", code="BAD_INPUT") == 1
    assert grew("gumem_http_requests_total", method="POST", route="/graphql", status="200") == 3
    assert "gumem_neo4j_failures_total" in after and "gumem_worker_restarts_total" in after
    # OpenMetrics for a scraper that asks for it
    om = await client.get("/metrics", headers={"accept": "application/openmetrics-text"})
    assert om.headers["content-type"].startswith("application/openmetrics-text")
    assert om.text.rstrip().endswith("# EOF")


async def test_failed_messages_are_counted_by_reason(
    settings: Settings, memory: Memory, client: httpx.AsyncClient
) -> None:
    assert memory.pipeline is not None
    s = settings.model_copy(update={"extract_mode": "thread", "process_mode": "async"})
    pipeline = Pipeline(memory.db, s, memory.pipeline.models, Extractor(s, fn=hooked))
    store = Memory(memory.db, s, pipeline)
    before = await scrape(client)
    item = {
        "id": "p-1",
        "userId": "u-p",
        "sessionId": "s-1",
        "role": "user",
        "content": f"{POISON} a message that cannot be read",
        "timestamp": "2026-11-30T10:00:00+08:00",
    }
    await store.add_messages("tenant-a", [item])
    assert (await pipeline.process_user("tenant-a", "u-p")).failed == 1
    await pipeline.extractor.close()
    after = await scrape(client)
    reason = {"reason": "extraction_error:ValueError"}
    grown = sample(after, "gumem_messages_failed_total", **reason) - sample(
        before, "gumem_messages_failed_total", **reason
    )
    assert grown == 1


async def test_metrics_key_guards_metrics_only(settings: Settings, runtime: Runtime) -> None:
    app = create_app(settings.model_copy(update={"metrics_key": SecretStr("mk-123")}), runtime)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://test"
    ) as c:
        assert (await c.get("/metrics")).status_code == 401
        assert (await c.get("/metrics", headers=A)).status_code == 401  # a tenant's key
        await scrape(c, authorization="Bearer mk-123")
        assert (await c.get("/ready")).status_code == 200  # open either way


async def test_ready_answers_when_started_and_neo4j_answers(client: httpx.AsyncClient) -> None:
    r = await client.get("/ready")
    assert r.status_code == 200
    body = r.json()
    assert body["ready"] is True and body["neo4j"].startswith("5.")
    assert (await client.get("/health")).json()["ok"] is True


class Relay:
    """A TCP relay from a loopback port to the test Neo4j's Bolt port: open, Neo4j is
    reachable there; closed (its connections cut), it is down."""

    def __init__(self, target_port: int) -> None:
        self.port = free_port()
        self.target_port = target_port
        self.server: asyncio.Server | None = None
        self.writers: set[asyncio.StreamWriter] = set()

    async def open(self) -> None:
        self.server = await asyncio.start_server(self._pipe, "127.0.0.1", self.port)

    async def close(self) -> None:
        if self.server is not None:
            self.server.close()
            for w in list(self.writers):
                w.transport.abort()
            await self.server.wait_closed()
            self.server = None

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        self.writers |= {writer, up_writer}

        async def copy(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(ConnectionError, OSError):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            dst.transport.abort()

        await asyncio.gather(copy(reader, up_writer), copy(up_reader, writer))
        self.writers -= {writer, up_writer}


@contextlib.contextmanager
def serving(settings: Settings) -> Iterator[str]:
    """`gumem serve`'s uvicorn on a free loopback port, in a thread; its base URL."""
    config = server_config(settings.model_copy(update={"port": free_port()}))
    with served(config) as port:
        yield f"http://127.0.0.1:{port}"


async def wait_ready(c: httpx.AsyncClient, status: int, within_s: float = 120) -> httpx.Response:
    deadline = time.monotonic() + within_s
    while True:
        r = await c.get("/ready")
        if r.status_code == status or time.monotonic() > deadline:
            return r
        await asyncio.sleep(0.5)


async def test_ready_is_503_while_neo4j_is_down_and_200_after(
    settings: Settings, memory: Memory
) -> None:
    assert settings.neo4j_uri is not None
    relay = Relay(int(settings.neo4j_uri.rsplit(":", 1)[1]))
    light = settings.model_copy(
        update={
            **LIGHT,
            "neo4j_uri": f"bolt://127.0.0.1:{relay.port}",  # nothing listens there yet
            "neo4j_timeout_s": 2.0,
        }
    )
    try:
        with serving(light) as url:
            async with httpx.AsyncClient(base_url=url, timeout=60) as c:
                r = await c.get("/ready")
                assert r.status_code == 503 and r.json() == {"ready": False, "reason": "starting"}
                assert (await c.get("/health")).status_code == 200  # alive all the same
                r = await c.post("/graphql", json={"query": "{ health { ok } }"}, headers=A)
                assert r.status_code == 503
                assert r.json()["errors"][0]["extensions"]["code"] == "STORAGE_UNAVAILABLE"

                await relay.open()  # Neo4j comes up: the runtime starts in the background
                r = await wait_ready(c, 200)
                assert r.status_code == 200 and r.json()["ready"] is True, r.text
                r = await c.post("/graphql", json={"query": "{ health { ok } }"}, headers=A)
                assert r.json()["data"]["health"]["ok"] is True

                await relay.close()  # Neo4j goes down
                r = await wait_ready(c, 503)
                assert r.json() == {"ready": False, "reason": "neo4j unavailable"}, r.text
                scraped = (await c.get("/metrics")).text
                assert sample(scraped, "gumem_neo4j_up") == 0
                assert sample(scraped, "gumem_neo4j_failures_total", kind="unavailable") >= 1

                await relay.open()  # and back
                r = await wait_ready(c, 200)
                assert r.status_code == 200, r.text
    finally:
        await relay.close()


# --- logs ---------------------------------------------------------------------------

SECRET_CONTENT = "zq-quokka-7731 我的护照号是 E48213377"
SECRET_QUERY = "zq-marmot-5521 护照"
SECRET_GET = "zq-lemur-9907"


@pytest.fixture
def json_logs() -> Iterator[io.StringIO]:
    """core.logs configured as `GUMEM_LOG_FORMAT=json gumem -v serve` does, into a buffer;
    the logging configuration before it is restored after."""
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    names = ("neo4j", "uvicorn", "uvicorn.error", "uvicorn.access", "httpx", "httpcore")
    saved_loggers = {
        n: (
            logging.getLogger(n).level,
            logging.getLogger(n).propagate,
            logging.getLogger(n).handlers[:],
        )
        for n in names
    }
    root.handlers.clear()  # a process that starts with none, as `gumem` does
    logs.configure("json", logging.DEBUG)
    buffer = io.StringIO()
    handler = root.handlers[0]
    assert isinstance(handler, logging.StreamHandler)
    handler.setStream(buffer)
    try:
        yield buffer
    finally:
        root.handlers[:] = saved[0]
        root.setLevel(saved[1])
        for n, (level, propagate, handlers) in saved_loggers.items():
            lg = logging.getLogger(n)
            lg.setLevel(level)
            lg.propagate = propagate
            lg.handlers[:] = handlers


async def test_logs_hold_no_content_nor_query_string(
    settings: Settings, memory: Memory, json_logs: io.StringIO
) -> None:
    msg = dict(seed("zh")[0], id="log-1", userId="u-log", content=SECRET_CONTENT)
    with serving(settings.model_copy(update=LIGHT)) as url:
        async with httpx.AsyncClient(base_url=url, timeout=300) as c:
            r = await c.post(
                "/graphql",
                json={"query": ADD, "variables": {"m": [msg]}},
                headers={**A, "X-Request-ID": "req-given-42"},
            )
            assert r.headers["x-request-id"] == "req-given-42"
            assert r.json()["data"]["addMessages"]["processed"] == 1
            r = await c.post(
                "/graphql",
                json={"query": RECALL, "variables": {"u": "u-log", "q": SECRET_QUERY}},
                headers=A,
            )
            assert "zq-quokka-7731" in r.json()["data"]["memory"]["formattedContext"]
            get = f'{{ memory(userId: "u-log", query: "{SECRET_GET}") {{ formattedContext }} }}'
            r = await c.get("/graphql", params={"query": get}, headers=A)
            assert r.status_code == 200 and not r.json().get("errors")
            # an invalid id in the header is replaced, errors quoting input are not logged
            bad_id = "x" * 300
            r = await c.get(
                "/graphql",
                params={"query": f'{{ memory(userId: 7, query: "{SECRET_GET}") {{ query }} }}'},
                headers={**A, "X-Request-ID": bad_id},
            )
            assert r.json()["errors"] and len(r.headers["x-request-id"]) == 32
            r = await c.post(
                "/graphql",
                json={"query": RECALL, "variables": {"u": "u-log", "q": SECRET_QUERY * 200}},
                headers=A,
            )
            assert r.json()["errors"][0]["extensions"]["code"] == "BAD_INPUT"
            await c.get(f"/nowhere/{SECRET_GET}?q={SECRET_GET}")
    text = json_logs.getvalue()
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines
    for needle in ("zq-quokka", "护照", "E48213377", "zq-marmot", SECRET_GET, "query=", "?q="):
        assert needle not in text, needle
    access = [ln for ln in lines if ln["logger"] == "gumem.access"]
    assert {(ln["method"], ln["path"]) for ln in access} >= {
        ("POST", "/graphql"),
        ("GET", "/graphql"),
        ("GET", "other"),
    }
    assert all(isinstance(ln["status"], int) and ln["duration_ms"] >= 0 for ln in access)
    given = [ln for ln in lines if ln.get("request_id") == "req-given-42"]
    assert {ln["logger"] for ln in given} > {"gumem.access"}  # the request's own lines too
    assert bad_id not in text
