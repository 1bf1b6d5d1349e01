"""Recall latency: p50/p95/p99 of GraphQL `memory(...)` as the store grows.

The store is filled in-process (full pipeline, synthetic traffic of --users users) up to
each size of --sizes in turn (cumulative: same users, longer histories); at each size a
real uvicorn serves the API on 127.0.0.1 and an httpx client runs --queries queries once
to warm the caches (query vectors, Neo4j page cache), then --repeat timed passes, one
request at a time. In-process `Memory.recall` latency is measured alongside.

Usage: python -m bench.recall --sizes 10000,100000 --users 1000 [--out ...]
--keep-neo4j keeps the store; --resume measures it again (and fills it on to bigger sizes).
"""

from __future__ import annotations

import argparse
import asyncio
import time
from datetime import datetime, timedelta
from typing import Any

import httpx
from tqdm import tqdm

from bench import synth
from bench.common import (
    RESULTS,
    Neo4jHandle,
    add_neo4j_args,
    fmt,
    gql,
    loadavg,
    log,
    machine,
    percentile,
    run_bench,
    serve_api,
    settings_for,
    store_mb,
    table,
)
from service.memory import Memory
from service.runtime import Runtime

TENANT = "bench-recall"
MEMORY = """query($u: String!, $q: String!, $now: DateTime, $limit: Int) {
  memory(userId: $u, query: $q, now: $now, limit: $limit) {
    formattedContext
    midTermContext { id kind score sourceMessageIds sourceFactIds }
    shortTermContext { id }
    longTermUserContext { id }
  }
}"""


def stats_ms(xs: list[float]) -> dict[str, float]:
    ms = [x * 1000 for x in xs]
    return {
        "n": len(ms),
        "p50_ms": percentile(ms, 50),
        "p95_ms": percentile(ms, 95),
        "p99_ms": percentile(ms, 99),
        "mean_ms": sum(ms) / len(ms),
    }


async def populate(memory: Memory, msgs: list[dict[str, Any]], batch: int) -> float:
    t0 = time.perf_counter()
    for i in tqdm(
        range(0, len(msgs), batch), desc=f"populate +{len(msgs)}", unit="batch", leave=False
    ):
        await memory.add_messages(TENANT, msgs[i : i + batch])
    if memory.pipeline is not None:  # what overran the sync budget is still queued
        while await memory.pipeline.process_pending(limit=1000):
            pass
    return time.perf_counter() - t0


def http_latency(
    h: Neo4jHandle, qs: list[tuple[str, str]], now: datetime, repeat: int, limit: int
) -> tuple[dict[str, float], float]:
    with serve_api(h, TENANT, process_mode="sync") as api, httpx.Client(timeout=60) as c:

        def one(u: str, q: str) -> float:
            t0 = time.perf_counter()
            gql(c, api, MEMORY, {"u": u, "q": q, "now": now.isoformat(), "limit": limit})
            return time.perf_counter() - t0

        for u, q in tqdm(qs, desc="warm-up (http)", unit="q", leave=False):
            one(u, q)
        lat = [
            one(u, q)
            for _ in range(repeat)
            for u, q in tqdm(qs, desc="timed (http)", unit="q", leave=False)
        ]
    return stats_ms(lat), loadavg()[0]


async def py_latency(
    memory: Memory, qs: list[tuple[str, str]], now: datetime, repeat: int, limit: int
) -> dict[str, float]:
    for u, q in qs:
        await memory.recall(TENANT, u, q, now=now, limit=limit)
    lat = []
    for _ in range(repeat):
        for u, q in qs:
            t0 = time.perf_counter()
            await memory.recall(TENANT, u, q, now=now, limit=limit)
            lat.append(time.perf_counter() - t0)
    return stats_ms(lat)


async def counts(memory: Memory) -> dict[str, int]:
    rows = await memory.db.rows(
        "MATCH (n) WHERE n.tenant = $t RETURN labels(n)[0] AS l, count(*) AS n", t=TENANT
    )
    return {r["l"]: r["n"] for r in rows}


async def run(args: argparse.Namespace, h: Neo4jHandle) -> dict[str, Any]:
    sizes = sorted(int(s) for s in args.sizes.split(","))
    users, msgs = synth.traffic(sizes[-1], args.users, seed=args.seed)
    # queries only for users who already have data at the smallest size
    present = {m["userId"] for m in msgs[: sizes[0]]}
    qs = synth.queries([u for u in users if u.user_id in present], seed=args.seed)
    qs = qs[: args.queries]
    rt = Runtime(settings_for(h, process_mode="sync"))
    memory = await rt.start()
    out: list[dict[str, Any]] = []
    done = 0
    try:
        if args.resume:  # the store of an earlier run (same seed): keep what it holds
            rows = await memory.db.rows(
                "MATCH (m:Message) WHERE m.tenant = $t RETURN count(m) AS n", t=TENANT
            )
            done = rows[0]["n"]
            log(f"resuming on a store of {done} messages; smaller sizes skipped")
        for size in (s for s in sizes if s >= done):
            rate = None
            if size > done:
                secs = await populate(memory, msgs[done:size], args.batch)
                rate = (size - done) / secs
                log(f"populated {size} messages (+{size - done} in {secs:.0f}s = {rate:.1f} msg/s)")
            done = size
            now = max(datetime.fromisoformat(m["timestamp"]) for m in msgs[:size])
            now += timedelta(minutes=5)
            py = await py_latency(memory, qs, now, args.repeat, args.limit)
            http, load = await asyncio.to_thread(http_latency, h, qs, now, args.repeat, args.limit)
            row = {
                "messages": size,
                "users": args.users,
                "populate_msgs_per_s": rate,
                "nodes": await counts(memory),
                "http": http,
                "in_process": py,
                "store": store_mb(h),
                "loadavg_1m": load,
            }
            out.append(row)
            log(f"@{size}: http p50 {http['p50_ms']:.1f} p95 {http['p95_ms']:.1f} ms")
    finally:
        await rt.close()
    if not out:
        raise SystemExit(f"nothing measured: the store already holds {done} messages")
    first, last = out[0], out[-1]
    # the ratio needs two sizes measured in this run
    ratio = last["http"]["p95_ms"] / first["http"]["p95_ms"] if len(out) > 1 else None
    return {
        "benchmark": "recall",
        "machine": machine(),
        "sizes": out,
        "queries": len(qs),
        "repeat": args.repeat,
        "limit": args.limit,
        "p95_ratio": {"of": f"{last['messages']}/{first['messages']}", "value": ratio},
        "targets": {
            "p50_le_15ms": last["http"]["p50_ms"] <= 15,
            "p95_le_40ms": last["http"]["p95_ms"] <= 40,
            "ratio_le_1.5": None if ratio is None else ratio <= 1.5,
            "at_messages": last["messages"],
        },
    }


def report(res: dict[str, Any]) -> str:
    rows = []
    for r in res["sizes"]:
        n = r["nodes"]
        rows.append(
            [
                r["messages"],
                n.get("Fact"),
                n.get("Summary"),
                n.get("Topic"),
                r["http"]["p50_ms"],
                r["http"]["p95_ms"],
                r["http"]["p99_ms"],
                r["in_process"]["p50_ms"],
                r["in_process"]["p95_ms"],
                r["populate_msgs_per_s"],
                r["loadavg_1m"],
            ]
        )
    t = table(
        [
            "messages",
            "facts",
            "summaries",
            "topics",
            "http p50",
            "http p95",
            "http p99",
            "py p50",
            "py p95",
            "populate msg/s",
            "load1",
        ],
        rows,
        f"Recall latency (ms), {res['queries']} queries x {res['repeat']} after a warm-up "
        f"pass, limit {res['limit']}, sequential",
    )
    return (
        f"{t}\np95 ratio {res['p95_ratio']['of']}: {fmt(res['p95_ratio']['value'])}\n"
        f"targets: {res['targets']}"
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_neo4j_args(p)
    p.add_argument("--sizes", default="10000,100000", help="cumulative store sizes (messages)")
    p.add_argument("--users", type=int, default=1000)
    p.add_argument("--queries", type=int, default=300)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--limit", type=int, default=8)
    p.add_argument("--batch", type=int, default=1000)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument(
        "--resume",
        action="store_true",
        help="keep the store in --neo4j-home and fill it on from what it holds",
    )
    p.add_argument("--out", default=str(RESULTS / "recall.json"))
    args = p.parse_args(argv)
    return run_bench(args, run, report, fresh=not args.resume)


if __name__ == "__main__":
    main()
