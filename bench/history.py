"""Cost per batch vs history: does a batch cost more the longer its user's history is?

One user receives a stream of messages, one of two (`--stream`):

- goals (the default; bench/goals.py): one long-lived user coming back to the same eight
  recurring goals (a marathon, Japanese, a flat, a kitchen, a diet, books, a job search, a
  garden) in Chinese and English, every message adding new content to its goal (numbers,
  dates, places, people), about one in twelve correcting a value said before. What a real
  user's long history costs.
- synth (bench/synth.py): many generated users' sessions, in Chinese and English, all sent
  as this one user (cities, jobs, domains, budgets, corrections, behaviour events). Its
  templates repeat, so it under-states what a long-lived goal costs.

At each history size (default 0, 1,000, 10,000 messages; up to 100,000 works) a few probe
batches of 20 messages (the stream's next ones) are sent through `add_messages` in sync mode
(store → facts → topics → summaries) and timed; between the points the history is filled
in batches of `--fill-batch`, and the fill rate is measured too. The warm-up is synth
traffic of another user. Everything in one run, on one private Neo4j; ratios to the cost
at 0 and at 1,000.

Usage: python -m bench.history [--stream goals|synth] [--points 0,1000,10000]
       [--bolt-port 7841 --http-port 7641]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from bench import goals, synth
from bench.common import (
    RESULTS,
    Neo4jHandle,
    add_neo4j_args,
    commit,
    cpu_seconds,
    log,
    machine,
    run_bench,
    settings_for,
    table,
)
from bench.graph_clock import GraphClock
from service.runtime import Runtime

USER = "history-user"


def one_user_stream(n: int, seed: int, users: int) -> list[dict[str, Any]]:
    """n messages of `users` generated users' traffic, all as USER (sessions kept apart)."""
    _users, msgs = synth.traffic(n, users, seed=seed)
    out = []
    for i, m in enumerate(msgs):
        out.append(
            {
                **m,
                "id": f"h{i}-{m['id']}",
                "userId": USER,
                "sessionId": f"{m['userId']}-{m['sessionId']}",
            }
        )
    return out


async def run(args: argparse.Namespace, h: Neo4jHandle) -> dict[str, Any]:
    points = sorted(int(x) for x in args.points.split(","))
    probes_total = len(points) * args.probes * args.probe_size
    total = points[-1] + probes_total + 100
    if args.stream == "goals":
        msgs = goals.goal_stream(total, args.seed, USER)
    else:
        msgs = one_user_stream(total, args.seed, args.users)
    tenant = args.tenant
    rt = Runtime(
        settings_for(h, process_mode="sync", query_timeout_s=600, neo4j_call_timeout_s=900)
    )
    memory = await rt.start()
    pos = 0  # next message of the stream
    history = 0  # messages of USER stored and processed
    rows: list[dict[str, Any]] = []
    fills: list[dict[str, Any]] = []

    def take(k: int) -> list[dict[str, Any]]:
        nonlocal pos
        out = msgs[pos : pos + k]
        pos += k
        return out

    try:
        assert memory.pipeline is not None
        memory.pipeline.models.en, memory.pipeline.models.zh  # noqa: B018 - load spaCy now
        # warm-up on another user: plan cache, JIT, extraction processes
        warm = one_user_stream(200, args.seed + 1, 10)
        for m in warm:
            m["userId"] = "warmup"
        for i in range(0, len(warm), 50):
            await memory.add_messages(f"{tenant}-warmup", warm[i : i + 50])
        for point in points:
            if point > history:
                n = point - history
                t0 = time.perf_counter()
                neo0 = cpu_seconds(h.pid) if h.pid else None
                seg = take(n)
                for i in range(0, len(seg), args.fill_batch):
                    b = seg[i : i + args.fill_batch]
                    tb = time.perf_counter()
                    await memory.add_messages(tenant, b)
                    if (i // args.fill_batch) % 10 == 0:
                        log(
                            f"fill: {history + i + len(b)} messages, last batch "
                            f"{time.perf_counter() - tb:.2f}s"
                        )
                history += n
                wall = time.perf_counter() - t0
                fill = {
                    "from": point - n,
                    "to": point,
                    "messages": n,
                    "seconds": wall,
                    "msgs_per_s": n / wall,
                }
                if neo0 is not None and h.pid:
                    fill["neo4j_cpu_s"] = (cpu_seconds(h.pid) or 0.0) - neo0
                fills.append(fill)
                log(f"filled {point - n} → {point}: {n / wall:.1f} msg/s")
            costs = []
            processed: list[int] = []
            clock = GraphClock()
            with clock.installed():
                for _ in range(args.probes):
                    b = take(args.probe_size)
                    t0 = time.perf_counter()
                    r = await memory.add_messages(tenant, b)
                    costs.append(time.perf_counter() - t0)
                    history += len(b)
                    processed.append(r.processed)  # fewer: some failed (time budget) or waited
            stats = await memory.db.rows(
                "MATCH (f:Fact) WHERE f.tenant = $t AND f.user_id = $u "
                "RETURN count(f) AS facts, count(CASE WHEN f.validity = 'active' "
                "THEN 1 END) AS active",
                t=tenant,
                u=USER,
            )
            counts = await memory.db.rows(
                "MATCH (s:Summary) WHERE s.tenant = $t AND s.user_id = $u "
                "WITH count(CASE WHEN s.validity = 'active' THEN 1 END) AS summaries "
                "MATCH (t:Topic) WHERE t.tenant = $t AND t.user_id = $u "
                "RETURN summaries, count(t) AS topics",
                t=tenant,
                u=USER,
            )
            row = {
                "history": point,
                "probe_s": costs,
                "probe_processed": processed,
                "median_s": statistics.median(costs),
                "facts": stats[0]["facts"],
                "active_facts": stats[0]["active"],
                "active_summaries": counts[0]["summaries"] if counts else 0,
                "topics": counts[0]["topics"] if counts else 0,
                # the probes' graph calls by the function making them, all probes together
                "graph_calls": clock.top(),
            }
            rows.append(row)
            log(f"history {point}: probe median {row['median_s']:.2f}s ({costs})")
    finally:
        await rt.close()
    base = rows[0]["median_s"]
    at_1k = next((r["median_s"] for r in rows if r["history"] == 1000), None)
    for point_row in rows:
        point_row["ratio"] = point_row["median_s"] / base
        point_row["ratio_1k"] = point_row["median_s"] / at_1k if at_1k else None
    return {
        "bench": "history",
        "stream": args.stream,
        "commit": commit(),
        "machine": machine(),
        "probe_size": args.probe_size,
        "probes": args.probes,
        "fill_batch": args.fill_batch,
        "rows": rows,
        "fills": fills,
        "target": "probe batch at 10,000 ≤ 1.3 × its cost at 1,000; at 100,000 ≤ 1.5 ×",
    }


def report(res: dict[str, Any]) -> str:
    out = [
        table(
            [
                "history msgs",
                "probe s (median)",
                "× at 0",
                "× at 1k",
                "facts",
                "active",
                "summaries",
                "topics",
            ],
            [
                [
                    r["history"],
                    r["median_s"],
                    r["ratio"],
                    r.get("ratio_1k"),
                    r["facts"],
                    r["active_facts"],
                    r["active_summaries"],
                    r["topics"],
                ]
                for r in res["rows"]
            ],
            f"Cost of a {res['probe_size']}-message batch vs the user's history, "
            f"{res.get('stream', 'synth')} stream "
            f"(median of {res['probes']} probes, commit {res['commit']})",
        ),
        table(
            ["fill", "msgs", "s", "msg/s", "neo4j CPU s"],
            [
                [
                    f"{f['from']}→{f['to']}",
                    f["messages"],
                    f["seconds"],
                    f["msgs_per_s"],
                    f.get("neo4j_cpu_s"),
                ]
                for f in res["fills"]
            ],
            f"\nFill rate (batches of {res['fill_batch']}, same user)",
        ),
        *(
            table(
                ["graph call", "s", "calls"],
                [[c["call"], c["seconds"], c["calls"]] for c in r.get("graph_calls", [])],
                f"\nAt {r['history']} messages: the probes' graph calls, slowest first",
            )
            for r in res["rows"]
        ),
        f"target: {res['target']}",
    ]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_neo4j_args(p)
    p.add_argument("--points", default="0,1000,10000", help="history sizes (messages)")
    p.add_argument("--probe-size", type=int, default=20)
    p.add_argument("--probes", type=int, default=3, help="probe batches per point (median)")
    p.add_argument("--fill-batch", type=int, default=100)
    p.add_argument(
        "--stream",
        choices=("synth", "goals"),
        default="goals",
        help="goals: one user's recurring goals, new content each message; synth: merged users",
    )
    p.add_argument(
        "--users", type=int, default=40, help="(synth stream) generated users merged into one"
    )
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--tenant", default="bench-history", help="(runs may share a Neo4j)")
    p.add_argument("--out", default=str(RESULTS / "history.json"))
    args = p.parse_args(argv)
    return run_bench(args, run, report)


if __name__ == "__main__":
    main()
