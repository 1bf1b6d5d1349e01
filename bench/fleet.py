"""`gumem` processes on one Neo4j (API, `gumem worker`s) and the queue's state, for the
benchmarks and the reliability tests (tests/reliability/test_workers.py)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

from bench.common import RESULTS, Neo4jHandle, settings_for
from core.settings import ROOT
from graph.db import Database, make_driver

READY = "runtime started"  # service.runtime logs it once the driver, models and extraction are up


class Proc:
    """A `gumem` subcommand in a process of its own (a session leader: SIGKILL-able)."""

    def __init__(self, args: list[str], env: dict[str, str], log: Path) -> None:
        self.args, self.env, self.log = args, env, log
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "doors.cli", *self.args],
                cwd=ROOT,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def logged(self, text: str) -> bool:
        try:
            return text.encode() in self.log.read_bytes()
        except OSError:
            return False

    def kill(self) -> None:
        if self.alive():
            assert self.proc is not None
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(30)

    def stop(self) -> None:
        if self.alive():
            assert self.proc is not None
            os.killpg(self.proc.pid, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(60)
        self.kill()


def wait_ready(procs: list[Proc], timeout_s: float = 300) -> float:
    """Until every process has logged READY (models loaded); the seconds it took."""
    t0 = time.monotonic()
    waiting = list(procs)
    while waiting:
        for p in waiting:
            if not p.alive():
                raise RuntimeError(f"gumem {' '.join(p.args)} exited; see {p.log}")
        waiting = [p for p in waiting if not p.logged(READY)]
        if waiting and time.monotonic() - t0 > timeout_s:
            raise RuntimeError(f"{len(waiting)} processes not ready after {timeout_s} s")
        time.sleep(0.25)
    return time.monotonic() - t0


@contextlib.contextmanager
def workers(n: int, env: dict[str, str], logdir: Path, tag: str = "worker") -> Iterator[list[Proc]]:
    """n `gumem worker` processes, ready (models loaded) on entry, stopped on exit."""
    procs = [Proc(["worker"], env, logdir / f"{tag}-{i}.log") for i in range(n)]
    try:
        for p in procs:
            p.start()
        wait_ready(procs)
        yield procs
    finally:
        for p in procs:
            p.stop()


def log_dir(bench: str) -> Path:
    """Where a run's `gumem` processes write their logs (bench/results/logs/<bench>-<pid>)."""
    d = RESULTS / "logs" / f"{bench}-{os.getpid()}"
    d.mkdir(parents=True, exist_ok=True)
    return d


@contextlib.asynccontextmanager
async def database(h: Neo4jHandle) -> AsyncIterator[Database]:
    """A driver of the bench's own (no models): to watch the queue the processes work on."""
    s = settings_for(h)
    driver = make_driver(s)
    try:
        yield Database(driver, s.neo4j_database, s.query_timeout_s, s.neo4j_call_timeout_s)
    finally:
        await driver.close()


QUEUE = """CALL () { MATCH (m:Message) WHERE m.tenant = $t AND m.status = 'pending'
  RETURN count(m) AS pending }
CALL () { MATCH (u:User) WHERE u.tenant = $t AND u.unconsolidated_at IS NOT NULL
  RETURN count(u) AS unconsolidated }
CALL () { MATCH (f:Fact) WHERE f.tenant = $t AND f.dirty = true
  RETURN count(f) AS dirty }
RETURN pending, unconsolidated, dirty"""


async def queue(db: Database, tenant: str) -> dict[str, int]:
    """What is left to do for a tenant: pending Messages, unconsolidated users, dirty Facts."""
    return {k: int(v) for k, v in (await db.rows(QUEUE, t=tenant))[0].items()}


async def settled(
    db: Database, tenant: str, timeout_s: float, poll_s: float = 1.0
) -> dict[str, int]:
    """Wait until nothing of the tenant is pending, unconsolidated or dirty; what is left."""
    deadline = time.monotonic() + timeout_s
    while True:
        left = await queue(db, tenant)
        if not any(left.values()) or time.monotonic() > deadline:
            return left
        await asyncio.sleep(poll_s)
