"""A load generator for the running API (httpx, asyncio) and the store checks after it."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from bench.common import outcome_of
from core.errors import StorageUnavailable
from core.settings import ROOT
from graph.db import Database
from tests.integration.helpers import ADD, seed

MEMORY = """query($u: String!, $q: String!) { memory(userId: $u, query: $q) {
  formattedContext midTermContext { id } shortTermContext { id } } }"""
QUERIES = [
    "跑鞋",
    "昨天看的鞋还有推荐吗？",
    "预算多少",
    "any more shoe picks from yesterday?",
    "what budget did I give?",
    "carbon plate running shoes",
    "尺码",
    "park run 5 km",
]
TEMPLATES = [m for lang in ("zh", "en") for m in seed(lang)]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def p95(values: list[float]) -> float:
    if not values:
        return 0.0
    v = sorted(values)
    return v[min(len(v) - 1, round(0.95 * (len(v) - 1)))]


class ApiServer:
    """`python -m doors.cli serve` in a subprocess of its own (so that it can be SIGKILLed)."""

    def __init__(self, bolt_uri: str, password: str, keys: str, log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/graphql"
        self.log = log
        self.env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("GUMEM_")},
            "GUMEM_NEO4J_URI": bolt_uri,
            "GUMEM_NEO4J_PASSWORD": password,
            "GUMEM_API_KEYS": keys,
            "GUMEM_HOST": "127.0.0.1",
            "GUMEM_PORT": str(self.port),
        }
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self, timeout_s: float = 240) -> float:
        t0 = time.monotonic()
        with self.log.open("ab") as out:
            out.write(f"\n=== start {self.starts} ===\n".encode())
            out.flush()
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "doors.cli", "serve"],
                cwd=ROOT,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.starts += 1
        health = self.url.replace("/graphql", "/health")
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"API exited with {self.proc.returncode}; see {self.log}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(health, timeout=2).status_code == 200:
                    return time.monotonic() - t0
            if time.monotonic() - t0 > timeout_s:
                self.kill()
                raise RuntimeError(f"API not up after {timeout_s} s; see {self.log}")
            time.sleep(0.3)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait(30)
        self.proc = None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(60)
        self.kill()


@dataclass
class Op:
    kind: str
    t0: float
    dt: float
    outcome: str  # ok | an error code | timeout | http<status> | conn
    ids: list[str] = field(default_factory=list)


@dataclass
class Load:
    """Clients mixing addMessages (small batches, unique ids) and memory(...)."""

    url: str
    key: str
    prefix: str
    users: list[str]
    batch: tuple[int, int] = (1, 3)
    read_ratio: float = 0.5
    timeout_s: float = 60.0
    ops: list[Op] = field(default_factory=list)
    batches: list[list[str]] = field(default_factory=list)
    acked: set[str] = field(default_factory=set)
    failed_batches: list[list[dict[str, Any]]] = field(default_factory=list)
    in_flight: int = 0
    samples: dict[str, str] = field(default_factory=dict)
    _n: int = 0

    def _messages(self, rng: random.Random, w: int) -> list[dict[str, Any]]:
        user = rng.choice(self.users)
        out = []
        for _ in range(rng.randint(*self.batch)):
            self._n += 1
            t = rng.choice(TEMPLATES)
            ts = datetime.fromisoformat("2026-11-30T10:00:00+08:00") + timedelta(seconds=self._n)
            out.append(
                dict(
                    t,
                    id=f"{self.prefix}-w{w}-{self._n}",
                    userId=user,
                    sessionId=f"s-{user}-{w}",
                    timestamp=ts.isoformat(),
                )
            )
        return out

    async def call(
        self, c: httpx.AsyncClient, kind: str, body: dict[str, Any], ids: list[str]
    ) -> Op:
        t0 = time.monotonic()
        self.in_flight += 1
        try:
            r = await c.post(self.url, json=body)
            outcome = outcome_of(r, add=kind in ("add", "retry"))
            if outcome != "ok":
                self.samples.setdefault(outcome, r.text[:500])
            if outcome == "ok" and kind == "add":
                res = r.json()["data"]["addMessages"]
                self.acked.update(res["accepted"])
                self.acked.update(res["duplicates"])
        except httpx.TimeoutException:
            outcome = "timeout"
        except httpx.TransportError:
            outcome = "conn"
        finally:
            self.in_flight -= 1
        op = Op(kind, t0, time.monotonic() - t0, outcome, ids)
        self.ops.append(op)
        return op

    async def worker(self, w: int, stop: asyncio.Event) -> None:
        rng = random.Random(f"{self.prefix}-{w}")
        headers = {"Authorization": f"Bearer {self.key}"}
        async with httpx.AsyncClient(timeout=self.timeout_s, headers=headers) as c:
            while not stop.is_set():
                if rng.random() < self.read_ratio:
                    body = {
                        "query": MEMORY,
                        "variables": {"u": rng.choice(self.users), "q": rng.choice(QUERIES)},
                    }
                    await self.call(c, "memory", body, [])
                else:
                    msgs = self._messages(rng, w)
                    ids = [m["id"] for m in msgs]
                    self.batches.append(ids)
                    op = await self.call(c, "add", {"query": ADD, "variables": {"m": msgs}}, ids)
                    if op.outcome != "ok":
                        self.failed_batches.append(msgs)
                    if op.outcome == "conn":
                        await asyncio.sleep(0.2)  # the API is down: do not spin

    async def run(self, clients: int, stop: asyncio.Event) -> None:
        await asyncio.gather(*(self.worker(w, stop) for w in range(clients)))

    async def resend_failed(self) -> int:
        """Clients retry what failed, once the service is back (idempotent by id)."""
        headers = {"Authorization": f"Bearer {self.key}"}
        n = 0
        async with httpx.AsyncClient(timeout=self.timeout_s, headers=headers) as c:
            for msgs in self.failed_batches:
                op = await self.call(
                    c, "retry", {"query": ADD, "variables": {"m": msgs}}, [m["id"] for m in msgs]
                )
                if op.outcome == "ok":
                    n += 1
        return n


async def rows(
    db: Database, cypher: str, attempts: int = 30, **params: Any
) -> list[dict[str, Any]]:
    """A read that waits out a Neo4j restart."""
    for i in range(attempts):
        try:
            return await db.rows(cypher, **params)
        except StorageUnavailable:
            if i == attempts - 1:
                raise
            await asyncio.sleep(1)
    raise AssertionError("unreachable")


async def wait_settled(db: Database, tenant: str, timeout_s: float = 180) -> int:
    """Until no Message of the tenant is pending; returns how many still are."""
    deadline = time.monotonic() + timeout_s
    while True:
        n = (
            await rows(
                db,
                "MATCH (m:Message {status: 'pending'}) WHERE m.tenant = $t RETURN count(m) AS n",
                t=tenant,
            )
        )[0]["n"]
        if n == 0 or time.monotonic() > deadline:
            return int(n)
        await asyncio.sleep(1)


async def store_check(
    db: Database, tenant: str, acked: set[str], batches: list[list[str]]
) -> dict[str, Any]:
    msgs = await rows(
        db,
        "MATCH (m:Message) WHERE m.tenant = $t RETURN m.message_id AS id, m.status AS status",
        t=tenant,
    )
    ids = [r["id"] for r in msgs]
    stored = set(ids)
    statuses: dict[str, int] = {}
    for r in msgs:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    fact_dups = (
        await rows(
            db,
            "MATCH (f:Fact) WITH f.fact_id AS id, count(*) AS n WHERE n > 1 RETURN count(id) AS n",
        )
    )[0]["n"]
    no_source = (await rows(db, "MATCH (f:Fact) WHERE NOT (f)-[:SOURCE]->() RETURN count(f) AS n"))[
        0
    ]["n"]
    source_mismatch = (
        await rows(
            db,
            "MATCH (f:Fact) WHERE size(f.source_message_ids) <> COUNT { (f)-[:SOURCE]->() } "
            "RETURN count(f) AS n",
        )
    )[0]["n"]
    facts = (await rows(db, "MATCH (f:Fact) RETURN count(f) AS n"))[0]["n"]
    half = [b for b in batches if 0 < len(stored & set(b)) < len(b)]
    return {
        "messages": len(ids),
        "facts": facts,
        "lost": sorted(acked - stored),
        "message_dups": len(ids) - len(stored),
        "fact_dups": fact_dups,
        "facts_without_source": no_source,
        "source_mismatch": source_mismatch,
        "half_written": half,
        "statuses": statuses,
    }
