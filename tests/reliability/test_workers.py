"""Many workers, one Neo4j (issue 19): 3 `gumem worker` processes and an API (async mode,
its own worker on too) process the same users' queue under per-user leases; one worker is
SIGKILLed mid-run while it holds a lease. Every acknowledged Message is processed exactly
once (by one owner, `processed_count` 1), none is lost, no Fact or SOURCE edge is
duplicated, and the killed worker's user is taken over once its lease expires."""

from __future__ import annotations

import asyncio
import contextlib
import os
import secrets
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench import synth
from bench.fleet import Proc, settled
from core.settings import Settings
from graph.db import Database
from service.memory import Memory
from tests.integration.helpers import ADD
from tests.reliability.figures import note, record
from tests.reliability.loadgen import free_port, rows, store_check

pytestmark = pytest.mark.reliability

TENANT = "tenant-w"
KEY = "rel-w-" + secrets.token_hex(12)
WORKERS = 3
LEASE_TTL_S = 6.0
USERS = 8
MESSAGES = 240
BATCH = 20


@pytest.fixture
def fleet(settings: Settings, memory: Memory, tmp_path: Path) -> Iterator[tuple[Proc, list[Proc]]]:
    """An API (async processing, its own worker) and WORKERS `gumem worker` processes."""
    port = free_port()
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GUMEM_")},
        "GUMEM_NEO4J_URI": str(settings.neo4j_uri),
        "GUMEM_NEO4J_PASSWORD": settings.neo4j_password.get_secret_value(),
        "GUMEM_API_KEYS": f"{KEY}={TENANT}",
        "GUMEM_HOST": "127.0.0.1",
        "GUMEM_PORT": str(port),
        "GUMEM_PROCESS_MODE": "async",
        "GUMEM_LEASE_TTL_S": str(LEASE_TTL_S),
        # two users in hand per worker: eight users need more than one worker at a time.
        # With four, one worker can hold every user the killed one does not, and take the
        # killed one's too when their leases expire (it polls again at once, an idle worker
        # a second later): correct, but then nothing shows the work is shared
        "GUMEM_WORKER_USERS": "2",
        "GUMEM_EXTRACT_MODE": "thread",  # one process per worker: 2 cores for 4 of them
        "GUMEM_QUERY_TIMEOUT_S": "60",
        "GUMEM_NEO4J_CALL_TIMEOUT_S": "90",
    }
    api = Proc(["serve"], env, tmp_path / "api.log")
    workers = [Proc(["worker"], env, tmp_path / f"worker-{i}.log") for i in range(WORKERS)]
    api.url = f"http://127.0.0.1:{port}"  # type: ignore[attr-defined]
    try:
        for p in [api, *workers]:
            p.start()
        deadline = time.monotonic() + 300
        while True:
            assert api.alive(), f"API exited; see {api.log}"
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).status_code == 200:
                    break
            assert time.monotonic() < deadline, f"API not up; see {api.log}"
            time.sleep(0.5)
        yield api, workers
    finally:
        for p in [*workers, api]:
            p.stop()


def traffic() -> tuple[list[dict[str, Any]], set[str]]:
    _users, msgs = synth.traffic(MESSAGES, USERS, seed=19)
    return msgs, {m["id"] for m in msgs}


async def holders(db: Database) -> dict[str, str]:
    """user id → owner of a live lease."""
    r = await rows(
        db,
        "MATCH (u:User) WHERE u.tenant = $t AND u.lease_owner IS NOT NULL "
        "AND u.lease_expires > datetime() RETURN u.user_id AS user, u.lease_owner AS owner",
        t=TENANT,
    )
    return {x["user"]: x["owner"] for x in r}


async def test_three_workers_and_an_api_one_killed(
    fleet: tuple[Proc, list[Proc]], memory: Memory
) -> None:
    api, workers = fleet
    db = memory.db
    msgs, ids = traffic()
    batches = [msgs[i : i + BATCH] for i in range(0, len(msgs), BATCH)]
    t0 = time.monotonic()
    acked: set[str] = set()
    async with httpx.AsyncClient(timeout=120) as c:
        for b in batches:
            r = await c.post(
                f"{api.url}/graphql",  # type: ignore[attr-defined]
                json={"query": ADD, "variables": {"m": b}},
                headers={"Authorization": f"Bearer {KEY}"},
            )
            assert r.status_code == 200, r.text
            res = r.json()["data"]["addMessages"]
            assert res["errors"] == []
            acked |= set(res["accepted"])
    assert acked == ids

    # kill a worker while it holds a user's lease (mid-batch)
    victim: Proc | None = None
    victim_user = ""
    deadline = time.monotonic() + 600
    while victim is None:
        assert time.monotonic() < deadline, "no worker ever held a lease"
        for user, owner in (await holders(db)).items():
            pid = int(owner.split(":")[1])
            victim = next((w for w in workers if w.pid == pid and w.alive()), None)
            if victim is not None:
                victim_user = user
                break
        else:
            await asyncio.sleep(0.2)
    assert victim is not None
    lease_before = (
        await rows(
            db,
            "MATCH (u:User) WHERE u.tenant = $t AND u.user_id = $u RETURN u.lease_token AS n",
            t=TENANT,
            u=victim_user,
        )
    )[0]["n"]
    victim.kill()
    killed_at = time.monotonic()
    note(f"[workers] SIGKILLed worker pid {victim.pid} holding user {victim_user}")

    left = await settled(db, TENANT, 900)
    took = time.monotonic() - t0
    assert left == {"pending": 0, "unconsolidated": 0, "dirty": 0}, left

    check = await store_check(db, TENANT, acked, [[m["id"] for m in b] for b in batches])
    assert check["lost"] == [], check["lost"][:10]
    assert check["message_dups"] == 0 and check["fact_dups"] == 0
    assert check["facts_without_source"] == 0 and check["source_mismatch"] == 0
    assert check["statuses"] == {"processed": len(ids)}, check["statuses"]

    once = await rows(
        db,
        "MATCH (m:Message) WHERE m.tenant = $t "
        "RETURN m.processed_count AS n, m.processed_by AS by, count(*) AS c",
        t=TENANT,
    )
    counts = {r["n"]: 0 for r in once}
    owners: dict[str, int] = {}
    for row in once:
        counts[row["n"]] += row["c"]
        owners[row["by"]] = owners.get(row["by"], 0) + row["c"]
    assert counts == {1: len(ids)}, f"processed_count per message: {counts}"
    # one Fact per (user, key, content), one SOURCE edge per (fact, message)
    dup_facts = await rows(
        db,
        "MATCH (f:Fact) WHERE f.tenant = $t WITH f.user_id AS u, f.key AS k, f.content AS c, "
        "count(*) AS n WHERE n > 1 RETURN count(*) AS n",
        t=TENANT,
    )
    assert dup_facts[0]["n"] == 0
    dup_edges = await rows(
        db,
        "MATCH (f:Fact)-[e:SOURCE]->(m:Message) WHERE f.tenant = $t "
        "WITH f, m, count(e) AS n WHERE n > 1 RETURN count(*) AS n",
        t=TENANT,
    )
    assert dup_edges[0]["n"] == 0
    # the killed worker's user was claimed again (a higher fencing token) and finished
    after = await rows(
        db,
        "MATCH (u:User) WHERE u.tenant = $t AND u.user_id = $u RETURN u.lease_token AS n",
        t=TENANT,
        u=victim_user,
    )
    # (claimed again only if the victim left work for that user: its lease expired either way)
    taken_over = after[0]["n"] > lease_before
    alive = [w for w in workers if w.alive()]
    assert len(alive) == WORKERS - 1
    assert len(owners) >= 2, f"the work was shared: {owners}"
    record(
        "workers",
        {
            "workers": WORKERS,
            "messages": len(ids),
            "users": USERS,
            "seconds": round(took, 1),
            "takeover_s": round(time.monotonic() - killed_at, 1),
            "owners": len(owners),
            "victim_user_taken_over": taken_over,
        },
    )
    note(
        f"[workers] {len(ids)} messages of {USERS} users by {len(owners)} owners in "
        f"{took:.0f} s; all processed exactly once, no duplicate Fact, none lost"
    )


async def test_a_stopped_worker_gives_its_leases_back(
    fleet: tuple[Proc, list[Proc]], memory: Memory
) -> None:
    """SIGTERM (docker stop, scale down): the worker finishes or cancels the user in hand
    within GUMEM_WORKER_STOP_S, releases its leases and exits 0; nobody waits for expiry."""
    api, workers = fleet
    db = memory.db
    msgs, ids = traffic()
    async with httpx.AsyncClient(timeout=120) as c:
        for i in range(0, len(msgs), BATCH):
            r = await c.post(
                f"{api.url}/graphql",  # type: ignore[attr-defined]
                json={"query": ADD, "variables": {"m": msgs[i : i + BATCH]}},
                headers={"Authorization": f"Bearer {KEY}"},
            )
            assert r.status_code == 200 and r.json()["data"]["addMessages"]["errors"] == []
    victim: Proc | None = None
    deadline = time.monotonic() + 600
    while victim is None:
        assert time.monotonic() < deadline, "no worker ever held a lease"
        pids = {int(owner.split(":")[1]) for owner in (await holders(db)).values()}
        victim = next((w for w in workers if w.pid in pids and w.alive()), None)
        if victim is None:
            await asyncio.sleep(0.2)
    assert victim.proc is not None
    t0 = time.monotonic()
    victim.proc.send_signal(signal.SIGTERM)
    code = await asyncio.to_thread(victim.proc.wait, 60)
    took = time.monotonic() - t0
    assert code == 0, f"exit code {code}; see {victim.log}"
    still = [o for o in (await holders(db)).values() if int(o.split(":")[1]) == victim.pid]
    assert still == [], f"live leases left by the stopped worker: {still}"
    note(f"[workers] SIGTERMed worker pid {victim.pid} exited 0 in {took:.1f} s, no lease left")

    left = await settled(db, TENANT, 900)
    assert left == {"pending": 0, "unconsolidated": 0, "dirty": 0}, left
    once = await rows(
        db,
        "MATCH (m:Message) WHERE m.tenant = $t RETURN m.processed_count AS n, count(*) AS c",
        t=TENANT,
    )
    assert {r["n"]: r["c"] for r in once} == {1: len(ids)}
