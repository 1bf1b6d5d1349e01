"""MemDaily turn recall: GUMem recall vs BM25 (jieba), dense and RRF hybrid over the same messages.

MemDaily (MemSim) simulates users telling an assistant, in Chinese, about the people, events,
places and things of their lives, one timestamped message at a time, then asking a question
whose answer lies in earlier messages (`target_step_id`). The procedure is the one the
held-out judge uses (the data folder's README):

- one user per trajectory: its messages plus four times as many noise messages drawn from
  trajectories of other entity domains (so they never speak of the same people or things),
  spread over the trajectory's time span; one session per calendar day; every message a
  `user` chat turn. Times are China local time (UTC+08:00).
- per question one `recall(userId, question, now=question time, limit=10)`; its mid-term
  then long-term items are expanded into their distinct source messages in rank order (a
  Summary through the sources of its `relevantFactIds`) and the first k are kept.
- turn recall@k = share of the target messages among those k; the baselines rank the same
  messages: BM25 over jieba tokens (bm25s), dense with GUMem's own embedding model (e5
  passage/query prefixes) and their reciprocal-rank fusion (k = 60, top 100 of each).
- answer in context: for short answers (at most 20 characters), whether the answer (case
  and whitespace folded) appears in GUMem's formattedContext, and in the hybrid's top five
  turns (one line each).

The data is research data: read from where it lies, never copied into the project.
Usage: python -m bench.memdaily --per-file 6 [--out out.json] [--keep-neo4j --reuse]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import time
from collections import defaultdict
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from bench.common import (
    RESULTS,
    Neo4jHandle,
    add_neo4j_args,
    log,
    machine,
    run_bench,
    settings_for,
    table,
)
from bench.locomo import Dense, first_k, gumem_messages, rrf, score
from core.settings import ROOT
from service.runtime import Runtime

KS = (3, 5, 10)
NOISE = 4  # noise messages per trajectory message
SHORT_ANSWER = 20  # characters: answers this short are matched in the context
CN = timezone(timedelta(hours=8))
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "memdaily"
_TIME = re.compile(r"(\d{4})年(\d{1,2})月(\d{1,2})日\D*?(\d{1,2}):(\d{2})")
_NAME = re.compile(r"\d+_(.+)_(roles|events|items|places|hybrid)$")
SYSTEMS = (
    ("gumem", "GUMem"),
    ("hybrid", "RRF hybrid"),
    ("bm25", "BM25 (jieba)"),
    ("dense", "dense"),
)
DEPTH = 100


def parse_time(raw: str) -> datetime:
    """'2024年04月01日 周一 08:39' in China local time."""
    m = _TIME.search(raw)
    if not m:
        raise ValueError(f"unparsable MemDaily time: {raw!r}")
    y, mo, d, h, mi = (int(x) for x in m.groups())
    return datetime(y, mo, d, h, mi, tzinfo=CN)


def load(folder: Path) -> list[tuple[str, str, dict[str, Any]]]:
    """(question type, entity domain, trajectory) for every trajectory of every file."""
    out = []
    for f in sorted(folder.glob("*.json")):
        m = _NAME.fullmatch(f.stem)
        if not m:
            continue
        for traj in json.loads(f.read_text(encoding="utf-8")):
            out.append((m.group(1), m.group(2), traj | {"file": f.stem}))
    return out


def user_messages(
    qtype: str, domain: str, traj: dict[str, Any], pool: dict[str, list[str]], rng: random.Random
) -> tuple[str, list[dict[str, Any]]]:
    """The user id and the trajectory's messages with its noise, in time order."""
    uid = f"{traj['file']}:{traj['tid']}"
    own = [
        (parse_time(m["time"]), f"{uid}:m{m['mid']}", m["message"]) for m in traj["message_list"]
    ]
    start, end = min(t for t, *_ in own), max(t for t, *_ in own)
    span = max((end - start).total_seconds(), 60.0)
    others = [t for d, texts in pool.items() if d != domain for t in texts]
    noise = []
    for i, text in enumerate(rng.sample(others, min(len(others), NOISE * len(own)))):
        noise.append((start + timedelta(seconds=rng.uniform(0, span)), f"{uid}:n{i}", text))
    msgs = []
    for ts, mid, text in sorted(own + noise, key=lambda x: (x[0], x[1])):
        msgs.append(
            {
                "id": mid,
                "userId": uid,
                "sessionId": f"{uid}:{ts.date().isoformat()}",
                "role": "user",
                "content": text,
                "timestamp": ts.isoformat(),
            }
        )
    return uid, msgs


def tokenize(texts: list[str]) -> list[list[str]]:
    import jieba

    return [[w for w in jieba.lcut(t.lower()) if re.search(r"\w", w)] for t in texts]


class Bm25:
    """BM25 over jieba tokens."""

    def __init__(self, ids: list[str], texts: list[str]) -> None:
        import bm25s

        self.ids = ids
        self.r = bm25s.BM25()
        self.r.index(tokenize(texts), show_progress=False)

    def search(self, q: str, k: int) -> list[str]:
        toks = tokenize([q])
        vocab = set(self.r.vocab_dict)
        toks = [[w for w in toks[0] if w in vocab]]
        if not toks[0]:
            return []
        docs, scores = self.r.retrieve(toks, k=min(k, len(self.ids)), show_progress=False)
        return [self.ids[int(i)] for i, sc in zip(docs[0], scores[0], strict=True) if sc > 0]


def fold(text: str) -> str:
    return "".join(text.lower().split())


async def run(args: argparse.Namespace, h: Neo4jHandle) -> dict[str, Any]:
    trajs = load(Path(args.data))
    pool: dict[str, list[str]] = defaultdict(list)
    for _q, domain, t in trajs:
        pool[domain] += [m["message"] for m in t["message_list"]]
    picked: list[tuple[str, str, dict[str, Any]]] = []
    per_file: dict[str, int] = defaultdict(int)
    for q, d, t in trajs:
        if per_file[t["file"]] < args.per_file:
            per_file[t["file"]] += 1
            picked.append((q, d, t))
    rt = Runtime(settings_for(h, process_mode="sync"))
    memory = await rt.start()
    tenant = args.tenant
    rows: list[dict[str, Any]] = []
    t_ingest = t_recall = 0.0
    n_msgs = 0
    try:
        for qtype, domain, traj in tqdm(picked, desc="memdaily", unit="user"):
            rng = random.Random(f"{traj['file']}:{traj['tid']}")
            uid, msgs = user_messages(qtype, domain, traj, pool, rng)
            n_msgs += len(msgs)
            t0 = time.perf_counter()
            stored = await memory.messages_by_ids(tenant, [m["id"] for m in msgs])
            if not (args.reuse and len(stored) == len(msgs)):
                for i in range(0, len(msgs), args.batch):
                    await memory.add_messages(tenant, msgs[i : i + args.batch])
                if memory.pipeline is not None:
                    while await memory.pipeline.process_pending(limit=1000):
                        pass
            t_ingest += time.perf_counter() - t0
            ids = [m["id"] for m in msgs]
            texts = [m["content"] for m in msgs]
            dense, bm25 = Dense(memory, ids, texts), Bm25(ids, texts)
            line = {m["id"]: m["content"] for m in msgs}
            t0 = time.perf_counter()
            for q in traj["question_list"]:
                gold = [f"{uid}:m{i}" for i in q["target_step_id"]]
                now = parse_time(q["time"])
                g, ctx, _n = await gumem_messages(memory, tenant, uid, q["question"], now, max(KS))
                qv = np.asarray(dense.emb.embed_queries([q["question"]])[0], dtype=np.float32)
                lex = bm25.search(q["question"], DEPTH)
                near = dense.search(q["question"], DEPTH, qv)
                ranked: dict[str, list[str]] = {
                    "gumem": g,
                    "hybrid": rrf([lex, near]),
                    "bm25": lex,
                    "dense": near,
                }
                row: dict[str, Any] = {"user": uid, "qtype": qtype, "domain": domain}
                for sys_, found in ranked.items():
                    for k in KS:
                        row[f"{sys_}@{k}"] = score(first_k(found, k), gold)
                answer = str(q.get("answer") or "").strip()
                if answer and len(answer) <= SHORT_ANSWER:
                    row["gumem_answer"] = float(fold(answer) in fold(ctx))
                    top5 = "\n".join(line[i] for i in first_k(ranked["hybrid"], 5))
                    row["hybrid_answer"] = float(fold(answer) in fold(top5))
                if args.verbose and row["gumem@5"] < row["dense@5"]:
                    log(f"{uid} {q['question']!r}: gumem {g[:5]} dense {near[:5]} gold {gold}")
                rows.append(row)
            t_recall += time.perf_counter() - t0
    finally:
        await rt.close()
    return summarise(rows, len(picked), n_msgs, t_ingest, t_recall)


def _mean(rows: list[dict[str, Any]], key: str) -> float | None:
    xs = [r[key] for r in rows if key in r]
    return float(np.mean(xs)) if xs else None


def _metrics(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"questions": len(rows)}
    for s, _ in SYSTEMS:
        for k in KS:
            out[f"{s}@{k}"] = _mean(rows, f"{s}@{k}")
    out["gumem_answer"] = _mean(rows, "gumem_answer")
    out["hybrid_answer"] = _mean(rows, "hybrid_answer")
    out["answer_questions"] = sum(1 for r in rows if "gumem_answer" in r)
    return out


def summarise(
    rows: list[dict[str, Any]], users: int, msgs: int, t_ingest: float, t_recall: float
) -> dict[str, Any]:
    return {
        "benchmark": "memdaily-turn-recall",
        "machine": machine(),
        "users": users,
        "messages": msgs,
        "overall": _metrics(rows),
        "by_qtype": _grouped(rows, "qtype"),
        "by_domain": _grouped(rows, "domain"),
        "ingest_seconds": t_ingest,
        "recall_seconds": t_recall,
        "rows": rows,
    }


def _grouped(rows: list[dict[str, Any]], key: str) -> dict[str, Any]:
    return {v: _metrics([r for r in rows if r[key] == v]) for v in sorted({r[key] for r in rows})}


def report(res: dict[str, Any]) -> str:
    heads = ["group", "n"] + [f"{lab} @{k}" for s, lab in SYSTEMS for k in KS]
    out_rows = []
    groups = [("all", res["overall"])]
    groups += [(f"type {q}", m) for q, m in res["by_qtype"].items()]
    groups += [(f"domain {d}", m) for d, m in res["by_domain"].items()]
    for name, m in groups:
        out_rows.append([name, m["questions"]] + [m[f"{s}@{k}"] for s, _ in SYSTEMS for k in KS])
    ans = [
        [name, m["answer_questions"], m["gumem_answer"], m["hybrid_answer"]] for name, m in groups
    ]
    return "\n".join(
        [
            table(
                heads,
                out_rows,
                f"MemDaily turn recall: {res['users']} users, {res['messages']} messages "
                f"(with noise), {res['overall']['questions']} questions",
            ),
            table(
                ["group", "n", "GUMem formattedContext", "hybrid top 5"],
                ans,
                f"answer in context (answers of at most {SHORT_ANSWER} characters)",
            ),
            f"ingest {res['ingest_seconds']:.0f}s "
            f"({res['messages'] / max(res['ingest_seconds'], 1e-9):.1f} msg/s), "
            f"recall loop {res['recall_seconds']:.0f}s",
        ]
    )


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_neo4j_args(p)
    p.add_argument("--data", default=str(DEFAULT_DATA))
    p.add_argument("--out", default=str(RESULTS / "memdaily.json"))
    p.add_argument("--per-file", type=int, default=6, help="trajectories per file (the first N)")
    p.add_argument("--batch", type=int, default=1000)
    p.add_argument("--tenant", default="bench-memdaily")
    p.add_argument("--verbose", action="store_true", help="log questions GUMem ranks below dense")
    p.add_argument("--reuse", action="store_true", help="keep the Neo4j data; skip stored users")
    args = p.parse_args(argv)
    return run_bench(args, run, report, fresh=not args.reuse)


if __name__ == "__main__":
    main()
