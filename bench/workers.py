"""Full-processing throughput with 1, 2 and 4 `gumem worker` processes on one Neo4j.

The API runs in async mode with its own worker off (GUMEM_RUN_WORKER=false), so only the
`gumem worker` processes process. The same synthetic stream of `--messages` messages across
`--users` users (bench/synth.py: chat and behaviour events, Chinese and English) is sent
for each worker count, as other users each time (ids and user ids prefixed), through
GraphQL `addMessages` in batches of `--batch`; the clock runs from the first batch sent
until nothing of the tenant is pending, unconsolidated or dirty. Before the timed stream,
each count's workers (models loaded) process a small warm-up stream. The bare embedding
model's texts/s on the same texts (bench/ingest.py `embed_rate`) is measured in the same
run, before any worker starts. Prints msg/s per worker count, the ratio to 1 worker and
to the bare model, and the 1-minute load average.

`--per-user N` sends instead a stream of many users who each send 1 to N messages (the
start of a first session, bench/synth.py `sparse`): a worker then finds one or two
Messages pending per user, as a service with many users mostly does.

Usage: python -m bench.workers [--workers 1,2,4] [--messages 600] [--users 60]
           [--per-user 2] [--bolt-port 7841 --http-port 7641]
           [--out bench/results/workers.json]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from collections import Counter
from typing import Any

from bench import synth
from bench.common import (
    RESULTS,
    Neo4jHandle,
    add_neo4j_args,
    commit,
    gumem_env,
    loadavg,
    log,
    machine,
    run_bench,
    serve_api,
    settings_for,
    table,
)
from bench.fleet import database, log_dir, settled, workers
from bench.ingest import embed_rate, http_ingest
from bench.load import cpu_now, extra_env
from graph.db import Database
from vectors.embedding import create_embedder

TENANT = "bench-workers"
OWNERS = """MATCH (m:Message) WHERE m.tenant = $t AND m.message_id STARTS WITH $p
RETURN m.status AS status, m.processed_by AS owner, m.processed_count AS times, count(*) AS n"""


async def processed_by(db: Database, prefix: str) -> dict[str, Any]:
    """How the messages whose ids start with `prefix` ended: statuses, how many times each
    was processed, by how many owners (worker processes)."""
    status: Counter[str] = Counter()
    owners: Counter[str] = Counter()
    times: Counter[int] = Counter()
    for r in await db.rows(OWNERS, t=TENANT, p=prefix):
        status[r["status"]] += r["n"]
        owners[r["owner"] or "-"] += r["n"]
        times[r["times"] or 0] += r["n"]
    return {
        "statuses": dict(status),
        "processed_count": {str(k): v for k, v in times.items()},
        "owners": len([o for o in owners if o != "-"]),
        "per_owner": sorted(owners.values(), reverse=True),
    }


def tagged(msgs: list[dict[str, Any]], tag: str) -> list[dict[str, Any]]:
    """The same messages as other users: ids, user and session ids prefixed with `tag`."""
    return [
        {
            **m,
            "id": f"{tag}-{m['id']}",
            "userId": f"{tag}-{m['userId']}",
            "sessionId": f"{tag}-{m['sessionId']}",
        }
        for m in msgs
    ]


async def bare_model(h: Neo4jHandle, msgs: list[dict[str, Any]]) -> dict[str, Any]:
    """The embedding model alone, loaded in this process, on the stream's texts: one call,
    ONNX Runtime's default threads (spinning, a little faster for one big call)."""
    s = settings_for(h)
    emb = create_embedder(s.embedding_model, s.model_cache, threads=s.embedding_threads, spin=True)
    out = await asyncio.to_thread(embed_rate, emb, msgs)
    log(f"bare embedding model: {out['msgs_per_s']:.1f} texts/s")
    return out


async def run(args: argparse.Namespace, h: Neo4jHandle) -> dict[str, Any]:
    counts = [int(x) for x in args.workers.split(",")]
    users, msgs = (
        synth.sparse(args.messages, args.per_user, seed=args.seed)
        if args.per_user
        else synth.traffic(args.messages, args.users, seed=args.seed)
    )
    warm = synth.traffic(args.warmup_messages, max(2 * max(counts), 4), seed=args.seed + 1)[1]
    env = extra_env(args.env)
    res: dict[str, Any] = {
        "bench": "workers",
        "commit": commit(),
        "machine": machine(),
        "config": {
            "workers": counts,
            "messages": len(msgs),
            "users": len(users),
            "per_user": args.per_user,
            "batch": args.batch,
            "warmup_messages": len(warm),
            "warmup_stream": args.warmup_stream,
            "env": env,
        },
        "embed": await bare_model(h, msgs),
        "phases": [],
    }
    logs = log_dir("workers")
    with serve_api(h, TENANT, process_mode="async", run_worker=False, extra_env=env) as api:
        wenv = gumem_env(h, TENANT, api.key, "async", extra=env)
        async with database(h) as db:

            async def phase(n: int, tag: str, stream: list[dict[str, Any]]) -> dict[str, Any]:
                t_start = time.monotonic()
                with workers(n, wenv, logs, tag=f"w{tag}") as procs:
                    ready_s = time.monotonic() - t_start
                    batches = synth.batches(tagged(warm, f"{tag}w"), args.batch)
                    await asyncio.to_thread(http_ingest, api, batches, "warm")
                    left = await settled(db, TENANT, args.timeout_s)
                    if any(left.values()):
                        raise RuntimeError(f"{n} workers: warm-up left {left}")
                    load0 = loadavg()[0]
                    cpu0 = cpu_now(h, api, procs)
                    t0 = time.perf_counter()
                    batches = synth.batches(tagged(stream, tag), args.batch)
                    await asyncio.to_thread(http_ingest, api, batches, tag)
                    acked_s = time.perf_counter() - t0
                    left = await settled(db, TENANT, args.timeout_s, poll_s=0.2)
                    wall = time.perf_counter() - t0
                    load1 = loadavg()[0]
                    cpu1 = cpu_now(h, api, procs)
                cpu_s = {
                    k: cpu1[k] - v  # type: ignore[operator]
                    for k, v in cpu0.items()
                    if v is not None and cpu1[k] is not None
                }
                ph = {
                    "workers": n,
                    "messages": len(stream),
                    "seconds": wall,
                    "msgs_per_s": len(stream) / wall,
                    "acked_s": acked_s,
                    "ready_s": ready_s,
                    "left": left,
                    **await processed_by(db, f"{tag}-"),
                    "cpu_s": cpu_s,
                    "neo4j_cpu_s": cpu_s.get("neo4j"),
                    "loadavg_1m_start": load0,
                    "loadavg_1m_end": load1,
                }
                log(f"{tag}: {n} workers, {ph['msgs_per_s']:.1f} msg/s ({wall:.1f}s)")
                return ph

            if args.warmup_stream:
                # Neo4j's JIT and caches: a first phase measured cold runs far slower
                stream = synth.traffic(args.warmup_stream, args.users, seed=args.seed + 2)[1]
                res["warmup"] = await phase(max(counts), "warm", stream)
            for i, n in enumerate(counts):
                res["phases"].append(await phase(n, f"p{i}n{n}", msgs))
    base = next((p for p in res["phases"] if p["workers"] == 1), res["phases"][0])
    for ph in res["phases"]:
        ph["over_first"] = ph["msgs_per_s"] / base["msgs_per_s"]
        ph["over_embedding"] = ph["msgs_per_s"] / res["embed"]["msgs_per_s"]
    res["baseline_workers"] = base["workers"]
    res["loadavg_end"] = loadavg()
    return res


def report(res: dict[str, Any]) -> str:
    e = res["embed"]
    rows: list[list[Any]] = [
        [
            "bare model",
            e["messages"],
            e["seconds"],
            e["msgs_per_s"],
            None,
            1.0,
            None,
            None,
            e["loadavg_1m"],
        ]
    ]
    for p in res["phases"]:
        rows.append(
            [
                f"{p['workers']} worker{'s' * (p['workers'] > 1)}",
                p["messages"],
                p["seconds"],
                p["msgs_per_s"],
                p["over_first"],
                p["over_embedding"],
                p["owners"],
                p["neo4j_cpu_s"],
                p["loadavg_1m_end"],
            ]
        )
    if res.get("warmup"):
        w = res["warmup"]
        rows.insert(
            1,
            [
                f"warm-up: {w['workers']}, untimed",
                w["messages"],
                w["seconds"],
                w["msgs_per_s"],
                None,
                None,
                w["owners"],
                w["neo4j_cpu_s"],
                w["loadavg_1m_end"],
            ],
        )
    parts = list(res["phases"][0].get("cpu_s", {}))
    cpu_rows = [
        [p["workers"], p["seconds"], *(p["cpu_s"].get(k) for k in parts)]
        for p in res["phases"]
        if p.get("cpu_s")
    ]
    c = res["config"]
    return "\n".join(
        [
            table(
                [
                    "processing",
                    "msgs",
                    "s",
                    "msg/s",
                    f"× {res['baseline_workers']} worker",
                    "× bare model",
                    "owners",
                    "neo4j CPU s",
                    "load1",
                ],
                rows,
                f"Full processing by `gumem worker` processes (commit {res['commit']}): "
                f"{c['messages']} messages of {c['users']} users, batches of {c['batch']}, "
                "API async with its own worker off",
            ),
            table(
                ["workers", "wall s", *parts],
                cpu_rows,
                "CPU seconds of each part in each timed phase (2 CPUs give 2 × wall s)",
            ),
            "statuses: "
            + "; ".join(f"{p['workers']}: {p['statuses']} {p['left']}" for p in res["phases"]),
            f"1-minute load average: start {res['machine']['loadavg_start'][0]:.2f}, "
            f"end {res['loadavg_end'][0]:.2f} ({res['machine']['cpus']} CPUs)",
            "issue 19 target: full processing ≥ 0.5 × the bare embedding model",
        ]
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_neo4j_args(p)
    p.add_argument("--workers", default="1,2,4", help="worker counts, one phase each")
    p.add_argument("--messages", type=int, default=600)
    p.add_argument("--users", type=int, default=60)
    p.add_argument("--batch", type=int, default=50, help="messages per addMessages")
    p.add_argument(
        "--per-user",
        type=int,
        default=0,
        help="each user sends 1 to this many messages (many users; --users is unused); "
        "0: --users users with sessions day after day",
    )
    p.add_argument("--warmup-messages", type=int, default=100, help="per phase, untimed")
    p.add_argument(
        "--warmup-stream",
        type=int,
        default=600,
        help="messages processed (untimed) before the first phase, by the most workers; 0: none",
    )
    p.add_argument("--timeout-s", type=float, default=1800.0, help="bound on one phase")
    p.add_argument("--env", action="append", default=[], help="GUMEM_X=v for every process")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--out", default=str(RESULTS / "workers.json"))
    args = p.parse_args(argv)
    return run_bench(args, run, report)


if __name__ == "__main__":
    main()
