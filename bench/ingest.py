"""Ingest benchmark: acknowledged and fully processed messages/s, over GraphQL and in-process.

Phases, each on its own tenant and the same synthetic traffic (bench/synth.py):
- embed: the bare embedding model (embed_passages) on the same message texts;
- py-ack / http-ack: `process_mode="async"`: add_messages only stores (processing queued);
- py-full / http-full: `process_mode="sync"`: store → facts → topics → summaries;
- profile: cProfile of in-process full processing (worker threads run inline so that the
  profiler sees extraction and embedding; the event loop's poll time = waiting on Neo4j).

Usage: python -m bench.ingest --messages 5000 --users 200 [--out bench/results/ingest.json]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import os
import pstats
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import httpx
from tqdm import tqdm

from bench import synth
from bench.common import (
    RESULTS,
    Api,
    Neo4jHandle,
    add_neo4j_args,
    cpu_seconds,
    gql,
    loadavg,
    log,
    machine,
    peak_rss_mb,
    run_bench,
    serve_api,
    settings_for,
    store_mb,
    table,
)
from extract.types import Embedder
from graph.pending import pending_users
from service.memory import Memory
from service.runtime import Runtime

WARMUP = [  # one English and one Chinese turn: loads spaCy and jieba in the API process
    {
        "id": "warmup-en",
        "userId": "warmup",
        "sessionId": "warmup",
        "role": "user",
        "content": "I like quiet hotels near the beach.",
        "timestamp": "2026-01-01T00:00:00Z",
    },
    {
        "id": "warmup-zh",
        "userId": "warmup",
        "sessionId": "warmup",
        "role": "user",
        "content": "我喜欢安静的海边酒店。",
        "timestamp": "2026-01-01T00:01:00Z",
    },
]
ADD = """mutation($m: [MessageInput!]!) {
  addMessages(messages: $m) { accepted duplicates errors { index field reason } processed }
}"""


async def checkpoint(memory: Memory) -> None:
    """Wait for a checkpoint (every 3 s, bench/common.py) so that store sizes are current.

    Community Neo4j has no db.checkpoint() procedure."""
    await memory.db.rows("RETURN 1 AS x")
    await asyncio.sleep(5)


class Phase:
    """Wall time, CPU of this process and of Neo4j, and store growth of one phase."""

    def __init__(self, name: str, h: Neo4jHandle, memory: Memory, n: int) -> None:
        self.name, self.h, self.memory, self.n = name, h, memory, n
        self.out: dict[str, Any] = {"phase": name, "messages": n}

    async def __aenter__(self) -> Phase:
        await checkpoint(self.memory)
        self.store0 = store_mb(self.h)
        self.neo_cpu0 = cpu_seconds(self.h.pid) if self.h.pid else None
        self.cpu0 = sum(os.times()[:2])
        self.t0 = time.perf_counter()
        return self

    async def __aexit__(self, *exc: object) -> None:
        wall = time.perf_counter() - self.t0
        cpu = sum(os.times()[:2]) - self.cpu0
        await checkpoint(self.memory)
        store1 = store_mb(self.h)
        self.out.update(
            seconds=wall, msgs_per_s=self.n / wall, bench_cpu_s=cpu, loadavg_1m=loadavg()[0]
        )
        if self.neo_cpu0 is not None and self.h.pid:
            self.out["neo4j_cpu_s"] = (cpu_seconds(self.h.pid) or 0.0) - self.neo_cpu0
        if self.store0 and store1:
            self.out["store_mb_per_10k"] = (
                (store1["store"] - self.store0["store"]) * 10_000 / self.n
            )
            self.out["tx_log_mb_per_10k"] = (
                (store1["tx_logs"] - self.store0["tx_logs"]) * 10_000 / self.n
            )
        log(f"{self.name}: {self.n} messages in {wall:.1f}s = {self.n / wall:.1f} msg/s")


async def warm_up(memory: Memory, seed: int) -> None:
    """Neo4j's plan cache and JIT, on their own tenants: a small batch stored and processed,
    and a few batches only stored (they stay queued: no worker runs in the benchmark)."""
    _users, msgs = synth.traffic(3200, 50, seed=seed + 2)
    await memory.add_messages("bench-warmup", msgs[:200])
    await all_processed(memory, "bench-warmup")
    ack = Memory(
        memory.db, memory.settings.model_copy(update={"process_mode": "async"}), memory.pipeline
    )
    for b in synth.batches(msgs[200:], 1000):
        await ack.add_messages("bench-warmup-ack", b)


async def all_processed(memory: Memory, tenant: str) -> None:
    """Fail the run if a full-processing phase left messages pending (its rate would lie)."""
    left = [u for t, u in await pending_users(memory.db, 10_000) if t == tenant]
    if left:
        raise RuntimeError(
            f"{tenant}: {len(left)} users still have pending messages or unconsolidated facts"
        )


async def py_ingest(
    memory: Memory, tenant: str, batches: list[list[dict[str, Any]]], desc: str
) -> int:
    done = 0
    for b in tqdm(batches, desc=desc, unit="batch", leave=False):
        r = await memory.add_messages(tenant, b)
        done += len(r.accepted)
    return done


def http_ingest(api: Api, batches: list[list[dict[str, Any]]], desc: str) -> int:
    done = 0
    with httpx.Client(timeout=1800) as client:
        for b in tqdm(batches, desc=desc, unit="batch", leave=False):
            data = gql(client, api, ADD, {"m": b})["addMessages"]
            if data["errors"]:
                raise RuntimeError(f"batch rejected: {data['errors'][:3]}")
            done += len(data["accepted"])
    return done


def bare_embedding(memory: Memory, msgs: list[dict[str, Any]]) -> dict[str, Any]:
    assert memory.pipeline is not None
    return embed_rate(memory.pipeline.models.embedder, msgs)


def embed_rate(emb: Embedder, msgs: list[dict[str, Any]]) -> dict[str, Any]:
    """The bare embedding model (embed_passages) on the messages' texts: all of them, and
    the chat turns alone."""
    emb.embed_passages(["warm up"])
    texts = [m["content"] for m in msgs]
    chat = [m["content"] for m in msgs if m["eventType"] == "message"]
    t0 = time.perf_counter()
    emb.embed_passages(texts)
    t_all = time.perf_counter() - t0
    t0 = time.perf_counter()
    emb.embed_passages(chat)
    t_chat = time.perf_counter() - t0
    return {
        "phase": "embed",
        "messages": len(texts),
        "seconds": t_all,
        "msgs_per_s": len(texts) / t_all,
        "chat_texts": len(chat),
        "chat_seconds": t_chat,
        "chat_texts_per_s": len(chat) / t_chat,
        "loadavg_1m": loadavg()[0],
    }


def count_embeddings(memory: Memory) -> Counter[str]:
    """Count what the pipeline sends to embed_passages (calls, texts, characters)."""
    assert memory.pipeline is not None
    emb = memory.pipeline.models.embedder
    inner = emb.embed_passages
    counts: Counter[str] = Counter()

    def counting(texts: Sequence[str]) -> list[list[float]]:
        counts["calls"] += 1
        counts["texts"] += len(texts)
        counts["chars"] += sum(len(t) for t in texts)
        return list(inner(texts))

    emb.embed_passages = counting  # type: ignore[method-assign]
    return counts


def _categories() -> dict[str, Callable[[tuple[str, int, str]], bool]]:
    return {
        "onnxruntime session.run (embedding model)": lambda k: (
            k[2] == "run" and "onnxruntime" in k[0]
        ),
        "FastEmbedder.embed_passages (total, incl. tokenizer)": lambda k: k[2] == "embed_passages",
        "extract_chat (spaCy/jieba + rules)": lambda k: k[2] == "extract_chat",
        "extract_events (behaviour aggregation)": lambda k: k[2] == "extract_events",
        "spaCy Language.__call__": lambda k: k[2] == "__call__" and "spacy/language" in k[0],
        "assign_topics": lambda k: k[2] == "assign_topics",
        "build_summaries": lambda k: k[2] == "build_summaries",
        "parse_batch (validation)": lambda k: k[2] == "parse_batch",
        "detect_lang": lambda k: k[2] == "detect_lang",
        "event loop poll (waiting on Neo4j)": lambda k: k[2] in ("poll", "select") and k[0] == "~",
        "neo4j driver (python side)": lambda k: "/neo4j/" in k[0] and k[2] == "run",
    }


async def profile(
    memory: Memory,
    batches: list[list[dict[str, Any]]],
    tenant: str = "bench-profile",
    tag: str = "ingest",
) -> dict[str, Any]:
    """cProfile (wall clock) of in-process ingest; to_thread runs inline."""
    real = asyncio.to_thread

    async def inline(func: Callable[..., Any], /, *a: Any, **kw: Any) -> Any:
        return func(*a, **kw)

    asyncio.to_thread = inline
    prof = cProfile.Profile()
    n = sum(len(b) for b in batches)
    t0 = time.perf_counter()
    prof.enable()
    try:
        await py_ingest(memory, tenant, batches, tag)
    finally:
        prof.disable()
        asyncio.to_thread = real
    wall = time.perf_counter() - t0
    prof.dump_stats(str(RESULTS / f"{tag}.prof"))
    st = pstats.Stats(prof)
    raw: dict[Any, Any] = st.stats  # type: ignore[attr-defined]
    total = max(wall, 1e-9)
    cats = {}
    for name, pred in _categories().items():
        cum = sum(v[3] for k, v in raw.items() if pred(k))
        cats[name] = {"seconds": cum, "pct": 100 * cum / total}
    by_tot = sorted(raw.items(), key=lambda kv: -kv[1][2])[:25]
    top = [
        {
            "function": f"{k[0].split('site-packages/')[-1]}:{k[1]}({k[2]})",
            "tottime_s": v[2],
            "tottime_pct": 100 * v[2] / total,
            "cumtime_s": v[3],
            "cumtime_pct": 100 * v[3] / total,
            "calls": v[1],
        }
        for k, v in by_tot
    ]
    buf = io.StringIO()
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(40)
    (RESULTS / f"{tag}-profile.txt").write_text(buf.getvalue(), encoding="utf-8")
    return {
        "messages": n,
        "wall_s": wall,
        "msgs_per_s": n / wall,
        "categories": cats,
        "top_tottime": top,
    }


async def run(args: argparse.Namespace, h: Neo4jHandle) -> dict[str, Any]:
    users, msgs = synth.traffic(args.messages, args.users, seed=args.seed)
    batches = synth.batches(msgs, args.batch)
    ack_msgs = synth.traffic(max(args.ack_messages, len(msgs)), args.users, seed=args.seed)[1]
    ack_batches = synth.batches(ack_msgs, args.batch)
    log(
        f"traffic: {len(msgs)} messages ({len(ack_msgs)} acknowledged-only), "
        f"{len(users)} users, {len(batches)} batches"
    )
    rt = Runtime(settings_for(h, process_mode="sync"))
    memory = await rt.start()
    ack_memory = Memory(memory.db, settings_for(h, process_mode="async"), memory.pipeline)
    phases: list[dict[str, Any]] = []
    want = set(args.phases.split(","))
    if args.skip_http:
        want -= {"http-ack", "http-full"}
    prof = ack_prof = None
    try:
        phases.append(bare_embedding(memory, msgs))  # always: the reference rate
        log(f"embed: {phases[-1]['msgs_per_s']:.1f} texts/s")
        assert memory.pipeline is not None
        memory.pipeline.models.en, memory.pipeline.models.zh  # noqa: B018 - load spaCy now
        await warm_up(memory, args.seed)
        if "py-ack" in want:
            async with Phase("py-ack", h, memory, len(ack_msgs)) as ph:
                await py_ingest(ack_memory, "bench-py-ack", ack_batches, "py-ack")
            phases.append(ph.out)
        if "py-full" in want:
            counts = count_embeddings(memory)
            async with Phase("py-full", h, memory, len(msgs)) as ph:
                await py_ingest(memory, "bench-py-full", batches, "py-full")
                await all_processed(memory, "bench-py-full")
            ph.out["embedded"] = dict(counts)
            phases.append(ph.out)
        for mode, name in (("async", "http-ack"), ("sync", "http-full")):
            if name not in want:
                continue
            with (
                serve_api(h, f"bench-{name}", process_mode=mode) as api,
                httpx.Client(timeout=300) as c,
            ):
                gql(c, api, ADD, {"m": WARMUP})  # loads all models before timing
                rss0 = peak_rss_mb(api.pid)
                cpu0 = cpu_seconds(api.pid)
                ack = mode == "async"
                async with Phase(name, h, memory, len(ack_msgs if ack else msgs)) as ph:
                    await asyncio.to_thread(http_ingest, api, ack_batches if ack else batches, name)
                    if not ack:
                        await all_processed(memory, f"bench-{name}")
                ph.out["api_peak_rss_mb"] = peak_rss_mb(api.pid)
                ph.out["api_rss_after_start_mb"] = rss0
                ph.out["api_cpu_s"] = (cpu_seconds(api.pid) or 0) - (cpu0 or 0)
            phases.append(ph.out)
        if "ack-profile" in want:
            ack_prof = await profile(ack_memory, batches, "bench-ack-profile", "ingest-ack")
        if "profile" in want and args.profile_messages:
            _users, pmsgs = synth.traffic(
                args.profile_messages, max(10, args.users // 4), seed=args.seed + 1
            )
            prof = await profile(memory, synth.batches(pmsgs, args.batch))
    finally:
        await rt.close()
    by = {p["phase"]: p for p in phases}
    embed_rate = by["embed"]["msgs_per_s"]
    targets = {
        "ack_ge_2000_msgs_per_s": {
            k: by[k]["msgs_per_s"] >= 2000 for k in ("py-ack", "http-ack") if k in by
        },
        "full_ge_0.8x_embedding": {
            k: by[k]["msgs_per_s"] >= 0.8 * embed_rate for k in ("py-full", "http-full") if k in by
        },
        "full_over_embedding": {
            k: by[k]["msgs_per_s"] / embed_rate for k in ("py-full", "http-full") if k in by
        },
    }
    return {
        "benchmark": "ingest",
        "machine": machine(),
        "messages": len(msgs),
        "users": len(users),
        "batch": args.batch,
        "phases": phases,
        "targets": targets,
        "profile": prof,
        "ack_profile": ack_prof,
    }


def report(res: dict[str, Any]) -> str:
    rows = [
        [
            p["phase"],
            p["messages"],
            p["seconds"],
            p["msgs_per_s"],
            p.get("store_mb_per_10k"),
            p.get("tx_log_mb_per_10k"),
            p.get("api_peak_rss_mb"),
            p.get("neo4j_cpu_s"),
            p.get("api_cpu_s", p.get("bench_cpu_s")),
            p.get("loadavg_1m"),
        ]
        for p in res["phases"]
    ]
    out = [
        table(
            [
                "phase",
                "msgs",
                "s",
                "msg/s",
                "store MB/10k",
                "txlog MB/10k",
                "API peak RSS MB",
                "neo4j CPU s",
                "gumem CPU s",
                "load1",
            ],
            rows,
            f"Ingest: {res['messages']} messages, {res['users']} users, batches of {res['batch']}",
        )
    ]
    out.append(f"targets: {res['targets']}")
    full = next((p for p in res["phases"] if p["phase"] == "py-full"), None)
    if full and full.get("embedded"):
        e = full["embedded"]
        out.append(
            f"py-full sent {e['texts']} texts ({e['chars']} chars) in {e['calls']} calls "
            f"to embed_passages for {full['messages']} messages "
            f"({e['texts'] / full['messages']:.2f} texts/message)"
        )
    for key, what in (("profile", "full"), ("ack_profile", "acknowledged (async mode)")):
        prof = res.get(key)
        if not prof:
            continue
        out.append(
            table(
                ["category (cumulative, wall)", "s", "% of wall"],
                [[k, v["seconds"], v["pct"]] for k, v in prof["categories"].items()],
                f"\nProfile: {prof['messages']} messages in-process {what}, "
                f"{prof['wall_s']:.1f}s wall ({prof['msgs_per_s']:.1f} msg/s "
                "under cProfile)",
            )
        )
        out.append(
            table(
                ["function (top by own time)", "own s", "own %", "cum %", "calls"],
                [
                    [
                        t["function"][-70:],
                        t["tottime_s"],
                        t["tottime_pct"],
                        t["cumtime_pct"],
                        t["calls"],
                    ]
                    for t in prof["top_tottime"][:15]
                ],
            )
        )
    return "\n".join(out)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_neo4j_args(p)
    p.add_argument("--messages", type=int, default=5000)
    p.add_argument("--users", type=int, default=200)
    p.add_argument("--batch", type=int, default=1000)
    p.add_argument(
        "--ack-messages",
        type=int,
        default=10_000,
        help="messages for the acknowledged-only phases (cheap; at least --messages)",
    )
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--profile-messages", type=int, default=1000, help="0: no profile")
    p.add_argument("--skip-http", action="store_true")
    p.add_argument(
        "--phases",
        default="py-ack,py-full,http-ack,http-full,profile,ack-profile",
        help="which phases (the bare embedding always runs)",
    )
    p.add_argument("--out", default=str(RESULTS / "ingest.json"))
    args = p.parse_args(argv)
    return run_bench(args, run, report)


if __name__ == "__main__":
    main()
