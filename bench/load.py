"""Mixed load: C clients each alternating addMessages and recall against a real uvicorn API.

The API runs in async mode (addMessages answers once its batch is stored; processing is
queued), or with `--mode sync` as a default `make run` has it (each addMessages answers
once its batch is processed; concurrent requests' users are processed together in units
of work), with its own worker on, plus `--workers` `gumem worker` processes on the same
Neo4j. Every synthetic user (bench/synth.py) first gets a processed history (`--prefill`
chat messages); then idle recall latency is measured, one `memory(...)` query at a time.
Then, for each client count (default 8 and 32): C clients, each owning a share of the
users, loop over: addMessages (`--batch` chat messages of one of its users, the user's
next ones) then `--recalls` recall queries (in the user's language, bench/synth.py
`queries`). Ops that end in the `--duration` seconds after a `--warmup` are counted; the
queue is then left to settle before the next count. Prints ops/s, p50/p95/p99 per
operation, errors, recall p95 under load / idle p95 (the same run), the messages processed
while loaded and the 1-minute load average.

The API's /metrics is scraped (bench/scrape.py) before, every `--scrape-s` seconds during
and after the prefill, the idle recalls, each load phase and its drain: the pending queue
and the oldest pending age (min/max), messages processed, recall count and p50/p95 from the
histogram, GraphQL errors by code. Counters are the API process's: with `--no-api-worker`
the processing of `gumem worker`s is not in them (the queue gauges cover every process).

Usage: python -m bench.load [--clients 8,32] [--duration 60] [--workers 0] [--scrape-s 2]
           [--mode async|sync] [--recalls 1]
           [--bolt-port 7841 --http-port 7641] [--out bench/results/load.json]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx

from bench import synth
from bench.common import (
    RESULTS,
    Api,
    Neo4jHandle,
    add_neo4j_args,
    commit,
    cpu_seconds,
    fmt,
    gumem_env,
    jit_cpu_seconds,
    loadavg,
    log,
    machine,
    outcome_of,
    percentile,
    run_bench,
    serve_api,
    table,
    tree_cpu_seconds,
)
from bench.fleet import Proc, database, log_dir, queue, settled, workers
from bench.scrape import Scraper
from graph.db import Database

TENANT = "bench-load"
ADD = """mutation($m: [MessageInput!]!) {
  addMessages(messages: $m) { accepted duplicates errors { index field reason } processed }
}"""
RECALL = """query($u: String!, $q: String!) { memory(userId: $u, query: $q) {
  formattedContext midTermContext { id } shortTermContext { id } } }"""
PROCESSED = "MATCH (m:Message) WHERE m.tenant = $t AND m.status = 'processed' RETURN count(m) AS n"
KINDS = ("addMessages", "recall")


def chat(u: synth.User, seed: int) -> Iterator[dict[str, Any]]:
    """One user's endless chat turns (behaviour events left out), in time order."""
    return (m for m in synth.stream([u], seed) if m["eventType"] == "message")


class Feeds:
    """Each user's next chat messages, a batch at a time: ids never repeat in a run."""

    def __init__(self, users: list[synth.User], seed: int) -> None:
        self._it = {u.user_id: chat(u, seed + i) for i, u in enumerate(users)}

    def take(self, user: str, n: int) -> list[dict[str, Any]]:
        return [next(self._it[user]) for _ in range(n)]


@dataclass
class Op:
    kind: str
    end: float  # time.monotonic() when the answer was read
    seconds: float
    outcome: str  # ok | an error code | ITEM_ERRORS | http<status> | timeout | conn
    messages: int = 0  # addMessages: accepted


@dataclass
class Clients:
    """The load's clients: one httpx.AsyncClient each, one request at a time."""

    api: Api
    feeds: Feeds
    queries: dict[str, list[str]]
    batch: int
    recalls: int
    timeout_s: float
    scraper: Scraper
    ops: list[Op] = field(default_factory=list)
    samples: dict[str, str] = field(default_factory=dict)  # an error's first answer

    def http(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            timeout=self.timeout_s, headers={"Authorization": f"Bearer {self.api.key}"}
        )

    async def call(self, c: httpx.AsyncClient, kind: str, body: dict[str, Any]) -> Op:
        t0 = time.monotonic()
        accepted = 0
        try:
            r = await c.post(self.api.url, json=body)
            outcome = outcome_of(r, add=kind == "addMessages")
            if outcome != "ok":
                self.samples.setdefault(outcome, r.text[:300])
            elif kind == "addMessages":
                accepted = len(r.json()["data"]["addMessages"]["accepted"])
        except httpx.TimeoutException:
            outcome = "timeout"
        except httpx.TransportError:
            outcome = "conn"
        end = time.monotonic()
        op = Op(kind, end, end - t0, outcome, accepted)
        self.ops.append(op)
        return op

    async def recall(self, c: httpx.AsyncClient, user: str, rng: random.Random) -> Op:
        q = rng.choice(self.queries[user])
        return await self.call(c, "recall", {"query": RECALL, "variables": {"u": user, "q": q}})

    async def add(self, c: httpx.AsyncClient, user: str) -> Op:
        msgs = self.feeds.take(user, self.batch)
        return await self.call(c, "addMessages", {"query": ADD, "variables": {"m": msgs}})

    async def client(self, users: list[str], rng: random.Random, stop: asyncio.Event) -> None:
        async with self.http() as c:
            i = 0
            while not stop.is_set():
                await self.add(c, users[i % len(users)])
                i += 1
                for _ in range(self.recalls):
                    if stop.is_set():
                        break
                    await self.recall(c, rng.choice(users), rng)


def stats(ops: list[Op], seconds: float) -> dict[str, Any]:
    ms = [o.seconds * 1000 for o in ops if o.outcome == "ok"]
    return {
        "ops": len(ops),
        "ok": len(ms),
        "ops_per_s": len(ops) / seconds,
        "p50_ms": percentile(ms, 50),
        "p95_ms": percentile(ms, 95),
        "p99_ms": percentile(ms, 99),
        "errors": sum(o.outcome != "ok" for o in ops),
    }


async def prefill(
    cl: Clients, db: Database, users: list[str], per_user: int, settle_s: float
) -> dict[str, Any]:
    """Every user's first `per_user` messages, stored (4 at a time) and processed."""
    t0 = time.monotonic()
    sem = asyncio.Semaphore(4)

    async def one(c: httpx.AsyncClient, user: str) -> None:
        async with sem:
            for _ in range(math.ceil(per_user / cl.batch)):
                op = await cl.add(c, user)
                if op.outcome != "ok":
                    raise RuntimeError(f"prefill failed: {op.outcome} {cl.samples}")

    async with cl.scraper.watch() as metrics:
        async with cl.http() as c:
            await asyncio.gather(*(one(c, u) for u in users))
        acked = sum(o.messages for o in cl.ops)
        left = await settled(db, TENANT, settle_s)
    if any(left.values()):
        raise RuntimeError(f"prefill did not settle in {settle_s} s: {left}")
    wall = time.monotonic() - t0
    cl.ops.clear()
    log(f"prefill: {acked} messages stored and processed in {wall:.1f}s")
    return {"messages": acked, "seconds": wall, "msgs_per_s": acked / wall, "metrics": metrics}


async def idle_recall(
    cl: Clients, users: list[str], n: int, warm: int, seed: int
) -> dict[str, Any]:
    """Recall latency with nothing else going on: one query at a time, after a warm-up."""
    rng = random.Random(seed)
    async with cl.http() as c:
        for i in range(warm):
            await cl.recall(c, users[i % len(users)], rng)
        cl.ops.clear()
        t0 = time.monotonic()
        async with cl.scraper.watch() as metrics:
            for i in range(n):
                await cl.recall(c, users[i % len(users)], rng)
    out = stats(cl.ops, time.monotonic() - t0)
    out["metrics"] = metrics
    out["loadavg_1m"] = loadavg()[0]
    cl.ops.clear()
    log(f"idle recall: p50 {out['p50_ms']:.1f} ms, p95 {out['p95_ms']:.1f} ms")
    return out


def cpu_now(h: Neo4jHandle, api: Api, procs: list[Proc]) -> dict[str, float | None]:
    """CPU seconds so far of each part: Neo4j, the API, the workers (with their extraction
    children) and this load generator, which shares the machine."""
    own = os.times()
    ws = [tree_cpu_seconds(p.pid) for p in procs if p.alive()]
    return {
        "neo4j": cpu_seconds(h.pid) if h.pid else None,
        "neo4j JIT (within neo4j)": jit_cpu_seconds(h.pid) if h.pid else None,
        "api": tree_cpu_seconds(api.pid),
        "workers": sum(w or 0.0 for w in ws),
        "load generator": own.user + own.system,
    }


async def load_phase(
    cl: Clients,
    db: Database,
    h: Neo4jHandle,
    procs: list[Proc],
    users: list[str],
    n: int,
    args: argparse.Namespace,
) -> dict[str, Any]:
    """n clients for warm-up + duration seconds; ops ending in the timed window count."""
    stop = asyncio.Event()
    cl.ops.clear()
    cl.samples.clear()
    groups = [users[c::n] for c in range(n)]
    # scraped from before the clients start until they all stopped
    async with cl.scraper.watch() as loaded:
        tasks = [
            asyncio.create_task(cl.client(g, random.Random(f"{args.seed}-{n}-{c}"), stop))
            for c, g in enumerate(groups)
        ]
        await asyncio.sleep(args.warmup)
        load0 = loadavg()[0]
        processed0 = (await db.rows(PROCESSED, t=TENANT))[0]["n"]
        cpu0 = cpu_now(h, cl.api, procs)
        t0 = time.monotonic()
        await asyncio.sleep(args.duration)
        t1 = time.monotonic()
        processed1 = (await db.rows(PROCESSED, t=TENANT))[0]["n"]
        cpu1 = cpu_now(h, cl.api, procs)
        cpu = {k: (cpu1[k] or 0.0) - v for k, v in cpu0.items() if v is not None}
        load1 = loadavg()[0]
        backlog = await queue(db, TENANT)
        stop.set()
        await asyncio.gather(*tasks)
    seconds = t1 - t0
    window = [o for o in cl.ops if t0 <= o.end <= t1]
    per_kind = {k: stats([o for o in window if o.kind == k], seconds) for k in KINDS}
    acked = sum(o.messages for o in window)
    t_settle = time.monotonic()
    async with cl.scraper.watch() as draining:
        left = await settled(db, TENANT, args.settle_s)
    out = {
        "clients": n,
        "seconds": seconds,
        **{f"all_{k}": v for k, v in stats(window, seconds).items()},
        "by_op": per_kind,
        "errors_whole_run": dict(Counter(o.outcome for o in cl.ops if o.outcome != "ok")),
        "error_samples": dict(cl.samples),
        "ops_whole_run": len(cl.ops),
        "messages_acked": acked,
        "messages_acked_whole_run": sum(o.messages for o in cl.ops),
        "acked_msgs_per_s": acked / seconds,
        "processed_while_loaded": processed1 - processed0,
        "processed_msgs_per_s": (processed1 - processed0) / seconds,
        "queue_at_end": backlog,
        "settle_s": time.monotonic() - t_settle,
        "left_after_settle": left,
        "neo4j_cpu_s": cpu.get("neo4j"),
        "cpu_s": cpu,
        "loadavg_1m_start": load0,
        "loadavg_1m_end": load1,
        "metrics": {"loaded": loaded, "settle": draining},
        "recalls_answered_whole_run": sum(o.kind == "recall" and o.outcome == "ok" for o in cl.ops),
    }
    log(
        f"{n} clients: {out['all_ops_per_s']:.1f} ops/s, recall p95 "
        f"{per_kind['recall']['p95_ms']:.0f} ms, addMessages p95 "
        f"{per_kind['addMessages']['p95_ms']:.0f} ms, errors {out['errors_whole_run']}"
    )
    return out


def extra_env(pairs: list[str]) -> dict[str, str]:
    out = {}
    for kv in pairs:
        k, sep, v = kv.partition("=")
        if not sep or not k.startswith("GUMEM_"):
            raise SystemExit(f"--env wants GUMEM_NAME=value, got {kv!r}")
        out[k] = v
    return out


async def run(args: argparse.Namespace, h: Neo4jHandle) -> dict[str, Any]:
    counts = [int(x) for x in args.clients.split(",")]
    if args.users < max(counts):
        raise SystemExit("--users must be at least the largest client count")
    users = synth.make_users(args.users, args.seed)
    ids = [u.user_id for u in users]
    queries: dict[str, list[str]] = {u: [] for u in ids}
    for u, q in synth.queries(users, per_user=4, seed=args.seed):
        queries[u].append(q)
    env = extra_env(args.env)
    res: dict[str, Any] = {
        "bench": "load",
        "commit": commit(),
        "machine": machine(),
        "config": {
            "clients": counts,
            "duration_s": args.duration,
            "warmup_s": args.warmup,
            "batch": args.batch,
            "recalls_per_add": args.recalls,
            "users": args.users,
            "prefill_per_user": args.prefill,
            "workers": args.workers,
            "mode": args.mode,
            "api_worker": not args.no_api_worker,
            "scrape_s": args.scrape_s,
            "env": env,
        },
    }
    with (
        serve_api(
            h, TENANT, process_mode=args.mode, run_worker=not args.no_api_worker, extra_env=env
        ) as api,
        workers(
            args.workers,
            gumem_env(h, TENANT, api.key, args.mode, extra=env),
            log_dir("load"),
        ) as procs,
    ):
        async with database(h) as db:
            metrics_key = env.get("GUMEM_METRICS_KEY", os.environ.get("GUMEM_METRICS_KEY", ""))
            scraper = Scraper(
                api.url.removesuffix("/graphql") + "/metrics", metrics_key, args.scrape_s
            )
            cl = Clients(
                api,
                Feeds(users, args.seed),
                queries,
                args.batch,
                args.recalls,
                args.timeout,
                scraper,
            )
            res["prefill"] = await prefill(cl, db, ids, args.prefill, args.settle_s)
            res["idle"] = await idle_recall(cl, ids, args.idle_queries, 20, args.seed)
            res["phases"] = []
            for n in counts:
                ph = await load_phase(cl, db, h, procs, ids, n, args)
                ph["recall_p95_over_idle"] = ph["by_op"]["recall"]["p95_ms"] / res["idle"]["p95_ms"]
                ph["recall_p50_over_idle"] = ph["by_op"]["recall"]["p50_ms"] / res["idle"]["p50_ms"]
                res["phases"].append(ph)
            res["scrape_errors"] = dict(Counter(scraper.errors))
    res["loadavg_end"] = loadavg()
    res["targets"] = targets(res)
    return res


def targets(res: dict[str, Any]) -> dict[str, Any]:
    """Issue 19's acceptance figures for 8 clients, when 8 was run."""
    ph = next((p for p in res["phases"] if p["clients"] == 8), None)
    if ph is None:
        return {}
    return {
        "ops_per_s_ge_30": ph["all_ops_per_s"] >= 30,
        "recall_p95_le_150ms": ph["by_op"]["recall"]["p95_ms"] <= 150,
        "add_p95_le_500ms": ph["by_op"]["addMessages"]["p95_ms"] <= 500,
        "zero_errors": not ph["errors_whole_run"],
        "recall_p95_le_3x_idle": ph["recall_p95_over_idle"] <= 3,
    }


def _row(clients: Any, op: str, s: dict[str, Any], load1: float) -> list[Any]:
    keys = ("ops", "ops_per_s", "p50_ms", "p95_ms", "p99_ms", "errors")
    return [clients, op, *(s[k] for k in keys), load1]


def report(res: dict[str, Any]) -> str:
    rows = [_row("idle", "recall", res["idle"], res["idle"]["loadavg_1m"])]
    for ph in res["phases"]:
        rows += [_row(ph["clients"], k, ph["by_op"][k], ph["loadavg_1m_end"]) for k in KINDS]
        whole = {k.removeprefix("all_"): v for k, v in ph.items() if k.startswith("all_")}
        rows.append(_row(ph["clients"], "all", whole, ph["loadavg_1m_end"]))
    c = res["config"]
    out = [
        table(
            ["clients", "op", "ops", "ops/s", "p50 ms", "p95 ms", "p99 ms", "errors", "load1"],
            rows,
            f"Mixed load (commit {res['commit']}): addMessages of {c['batch']} chat messages "
            f"and {c['recalls_per_add']} recall per client turn, {c['duration_s']} s after "
            f"{c['warmup_s']} s warm-up; API {c.get('mode', 'async')}, its own worker "
            f"{'on' if c['api_worker'] else 'off'}, {c['workers']} `gumem worker`; "
            f"{c['users']} users with {res['prefill']['messages']} messages of history",
        ),
        table(
            [
                "clients",
                "recall p95 / idle",
                "p50 / idle",
                "acked msg/s",
                "processed msg/s",
                "pending at end",
                "settle s",
                "neo4j CPU s",
                "errors (whole phase)",
            ],
            [
                [
                    p["clients"],
                    p["recall_p95_over_idle"],
                    p["recall_p50_over_idle"],
                    p["acked_msgs_per_s"],
                    p["processed_msgs_per_s"],
                    p["queue_at_end"]["pending"],
                    p["settle_s"],
                    p["neo4j_cpu_s"],
                    p["errors_whole_run"] or 0,
                ]
                for p in res["phases"]
            ],
            "\nRatios measured in this run; messages acknowledged and processed while loaded",
        ),
        "\nCPU seconds while loaded (2 CPUs give 2 s per second): "
        + "; ".join(
            f"{p['clients']} clients: "
            + ", ".join(f"{k} {v:.1f}" for k, v in p["cpu_s"].items())
            + f" of {p['seconds'] * res['machine']['cpus']:.0f}"
            for p in res["phases"]
        ),
        metrics_table(res),
        f"1-minute load average: start {res['machine']['loadavg_start'][0]:.2f}, "
        f"end {res['loadavg_end'][0]:.2f} ({res['machine']['cpus']} CPUs)",
        f"issue 19 targets at 8 clients: {res['targets']}",
    ]
    return "\n".join(out)


def _count(x: float | None) -> int | None:
    return None if x is None or math.isnan(x) else round(x)


def _metrics_row(name: str, m: dict[str, Any]) -> list[Any]:
    pend, age, rec = m.get("pending", {}), m.get("oldest_pending_age_s", {}), m.get("recall", {})
    return [
        name,
        m["scrapes"],
        f"{fmt(_count(pend.get('min')))}–{fmt(_count(pend.get('max')))}",
        age.get("max"),
        _count(m.get("processed")),
        _count(rec.get("count")),
        *(
            None if rec.get(k) is None or math.isnan(rec[k]) else rec[k]
            for k in ("p50_ms", "p95_ms")
        ),
        m.get("graphql_errors") or 0,
    ]


def metrics_table(res: dict[str, Any]) -> str:
    rows = [_metrics_row("prefill", res["prefill"]["metrics"])]
    rows.append(_metrics_row("idle recall", res["idle"]["metrics"]))
    for p in res["phases"]:
        rows.append(_metrics_row(f"{p['clients']} clients", p["metrics"]["loaded"]))
        rows.append(_metrics_row(f"{p['clients']} clients, drain", p["metrics"]["settle"]))
    headers = ["phase", "scrapes", "pending min–max", "oldest age max s", "processed"]
    headers += ["recalls", "recall p50 ms", "p95 ms", "GraphQL errors"]
    title = (
        f"\nThe API's /metrics every {res['config']['scrape_s']} s (recall quantiles from the "
        "histogram's buckets; processed: the API process's own"
        + ("" if res["config"]["api_worker"] else ", its worker off")
        + f"); failed scrapes: {res.get('scrape_errors') or 0}"
    )
    return table(headers, rows, title)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_neo4j_args(p)
    p.add_argument("--clients", default="8,32", help="client counts, one phase each")
    p.add_argument("--duration", type=float, default=60.0, help="timed seconds per phase")
    p.add_argument("--warmup", type=float, default=10.0, help="untimed seconds first")
    p.add_argument("--batch", type=int, default=5, help="messages per addMessages")
    p.add_argument("--recalls", type=int, default=1, help="recall queries per addMessages")
    p.add_argument("--users", type=int, default=64, help="synthetic users (≥ clients)")
    p.add_argument("--prefill", type=int, default=10, help="processed messages per user first")
    p.add_argument("--idle-queries", type=int, default=100)
    p.add_argument("--workers", type=int, default=0, help="`gumem worker` processes besides")
    p.add_argument(
        "--mode",
        choices=("async", "sync"),
        default="async",
        help="GUMEM_PROCESS_MODE; sync: each addMessages answers once processed (the default)",
    )
    p.add_argument("--no-api-worker", action="store_true", help="GUMEM_RUN_WORKER=false")
    p.add_argument("--settle-s", type=float, default=900.0, help="queue drain bound per phase")
    p.add_argument("--timeout", type=float, default=120.0, help="client timeout per request")
    p.add_argument("--env", action="append", default=[], help="GUMEM_X=v for every process")
    p.add_argument("--scrape-s", type=float, default=2.0, help="seconds between /metrics reads")
    p.add_argument("--seed", type=int, default=19)
    p.add_argument("--out", default=str(RESULTS / "load.json"))
    args = p.parse_args(argv)
    return run_bench(args, run, report)


if __name__ == "__main__":
    main()
