"""Offline A/B of recall's ranking over one stored LoCoMo ingest (a development tool).

`dump` reads, once, what recall reads for every LoCoMo question (the candidates of
`graph.recall.candidates`, the Facts among them with their sources, the corrected turns)
from a Neo4j that `bench.locomo --reuse` filled, plus the fair RRF hybrid's ranking of the
turns, into a pickle. `score` then runs `service.recall`'s plan and assemble on those
candidates as the service would and scores them as `bench.locomo` does (turn recall@k,
session recall_all@k, answer in context at equal tokens, mean tokens), in seconds, so a
ranking change can be measured before it is built into the service. The figures of
record still come from `make bench-locomo`, which runs the real service end to end.

Usage:
  python -m bench.locomo --bolt-port B --http-port H --reuse   # once: ingest and keep
  python -m bench.locomo_ab dump --bolt-port B --http-port H --out /tmp/ab.pkl
  python -m bench.locomo_ab score /tmp/ab.pkl
"""

from __future__ import annotations

import argparse
import asyncio
import json
import pickle
import sys
from collections import defaultdict
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

from bench.common import Neo4jHandle, add_neo4j_args, log, neo4j, settings_for
from bench.locomo import (
    DEFAULT_DATA,
    DEPTH,
    KS,
    Bm25,
    Dense,
    answer_in,
    baseline_line,
    budget_context,
    evidence,
    first_k,
    load_conversation,
    named,
    rrf,
    score,
    sessions_of,
    tokens,
)
from graph import reads
from graph import recall as grecall
from service import recall as grank
from service.runtime import Runtime
from text.time_window import parse_time_cue


async def _dump(args: argparse.Namespace, h: Neo4jHandle) -> None:
    data = json.loads(Path(args.data).read_text(encoding="utf-8"))
    rt = Runtime(settings_for(h, process_mode="sync"))
    memory = await rt.start()
    assert memory.pipeline is not None
    out: dict[str, Any] = {"convs": []}
    try:
        for conv in data:
            cid, msgs, now = load_conversation(conv)
            stored = await memory.messages_by_ids(args.tenant, [m["id"] for m in msgs])
            if len(stored) != len(msgs):
                raise SystemExit(f"{cid}: not stored; run bench.locomo --reuse first")
            ids = [m["id"] for m in msgs]
            texts = [named(m) for m in msgs]
            dense, bm25 = Dense(memory, ids, texts), Bm25(ids, texts)
            questions = []
            for q in conv.get("qa") or []:
                gold, _mal, _unk = evidence(q, cid, set(ids))
                if not gold:
                    continue
                text = str(q.get("question") or "").strip() or "?"
                qvec = memory.pipeline.models.embed_query(text)
                c = await grecall.candidates(
                    memory.db,
                    args.tenant,
                    cid,
                    text,
                    qvec,
                    now,
                    None,
                    fact_k=args.k,
                    message_k=args.k,
                    recent_k=memory.settings.short_term_messages,
                    recent_since=now - timedelta(hours=memory.settings.short_term_hours),
                )
                fids = sorted({f.id for f in [*c.fact_near, *c.fact_hits]})
                fids += sorted({f for s in c.summaries for f in s.source_facts})
                facts = await reads.facts_by_ids(memory.db, args.tenant, sorted(set(fids)))
                qv = np.asarray(qvec, dtype=np.float32)
                hybrid = rrf([bm25.search(text, DEPTH), dense.search(text, DEPTH, qv)])
                questions.append(
                    {
                        "q": text,
                        "category": str(q.get("category")),
                        "answer": q.get("answer"),
                        "gold": gold,
                        "c": c,
                        "facts": facts,
                        "hybrid": hybrid,
                    }
                )
            log(f"{cid}: {len(questions)} questions dumped")
            lines = {m["id"]: baseline_line(m, t) for m, t in zip(msgs, texts, strict=True)}
            out["convs"].append(
                {"cid": cid, "now": now, "msgs": msgs, "lines": lines, "questions": questions}
            )
    finally:
        await rt.close()
    Path(args.out).write_bytes(pickle.dumps(out))


def gumem_ranked(
    conv: dict[str, Any], qd: dict[str, Any], limit: int, weights: grank.Weights
) -> tuple[list[str], str]:
    """What the service's recall would rank and format for this question (same steps)."""
    cid, now = conv["cid"], conv["now"]
    c = grank.own_candidates(qd["c"], cid)
    window = grank.past_window(parse_time_cue(qd["q"], now), now)
    p = grank.plan(c, window, limit, weights, qd["q"])
    facts = {f: qd["facts"][f] for f in p.fact_ids() if f in qd["facts"]}
    r = grank.assemble(p, c, facts, qd["q"], weights, user_id=cid)
    ranked: list[str] = []
    for it in [*r.mid_term, *r.long_term]:
        if it.kind == "summary":
            for f in it.relevant_fact_ids:
                found = qd["facts"].get(f)
                ranked += [s.message_id for s in found.sources] if found else []
        else:
            ranked += it.source_message_ids
    return first_k(ranked, limit), r.formatted


def score_dump(dump: dict[str, Any], weights: grank.Weights, limit: int = 20) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    for conv in dump["convs"]:
        for qd in conv["questions"]:
            g, ctx = gumem_ranked(conv, qd, limit, weights)
            budget = tokens(ctx)
            row: dict[str, Any] = {"category": qd["category"], "tokens": budget}
            gold_s = sessions_of(qd["gold"])
            for name, found in (("gumem", g), ("hybrid", qd["hybrid"])):
                for k in KS:
                    row[f"{name}@{k}"] = score(found[:k], qd["gold"])
                    row[f"{name}_sess@{k}"] = float(gold_s <= sessions_of(first_k(found, k)))
                if qd["answer"] is not None:
                    text = ctx if name == "gumem" else budget_context(found, conv["lines"], budget)
                    row[f"{name}_answer"] = float(answer_in(qd["answer"], text))
            rows.append(row)
    return summary(rows)


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    scored = [r for r in rows if r["category"] != "5"]

    def mean(rs: list[dict[str, Any]], key: str) -> float:
        xs = [r[key] for r in rs if key in r]
        return float(np.mean(xs)) if xs else float("nan")

    out: dict[str, Any] = {"tokens": mean(scored, "tokens")}
    for name in ("gumem", "hybrid"):
        m: dict[str, Any] = {f"@{k}": mean(scored, f"{name}@{k}") for k in KS}
        m["sess@5"], m["sess@10"] = mean(scored, f"{name}_sess@5"), mean(scored, f"{name}_sess@10")
        m["answer"] = mean(scored, f"{name}_answer")
        by: dict[str, float] = defaultdict(float)
        for cat in ("1", "2", "3", "4", "5"):
            by[cat] = mean([r for r in rows if r["category"] == cat], f"{name}@10")
            by[f"a{cat}"] = mean([r for r in rows if r["category"] == cat], f"{name}_answer")
        m["by"] = dict(by)
        out[name] = m
    return out


def show(label: str, s: dict[str, Any]) -> str:
    g, h = s["gumem"], s["hybrid"]
    cats = " ".join(f"{g['by'][c]:.3f}/{h['by'][c]:.3f}" for c in "1234")
    ans = " ".join(f"{g['by']['a' + c]:.3f}/{h['by']['a' + c]:.3f}" for c in "1234")
    return (
        f"{label:<24} @5 {g['@5']:.3f} @10 {g['@10']:.3f} (hyb {h['@10']:.3f}, "
        f"{g['@10'] - h['@10']:+.3f}) @20 {g['@20']:.3f} sess10 {g['sess@10']:.3f} "
        f"ans {g['answer']:.3f}/{h['answer']:.3f} tok {s['tokens']:.0f} | cats {cats} | ans {ans}"
    )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dump")
    add_neo4j_args(d)
    d.add_argument("--data", default=str(DEFAULT_DATA))
    d.add_argument("--tenant", default="bench-locomo")
    d.add_argument("--k", type=int, default=60, help="candidates per list (the setting's default)")
    d.add_argument("--out", required=True)
    s = sub.add_parser("score")
    s.add_argument("dump")
    s.add_argument("--vary", action="append", default=[], help="field=v1,v2 of Weights")
    args = p.parse_args(argv)
    if args.cmd == "dump":
        with neo4j(args, fresh=False) as h:
            asyncio.run(_dump(args, h))
        return
    dump = pickle.loads(Path(args.dump).read_bytes())
    base = grank.Weights()
    print(show("current", score_dump(dump, base)), file=sys.stdout, flush=True)
    for spec in args.vary:
        name, values = spec.split("=", 1)
        for v in values.split(","):
            w = replace(base, **{name: float(v)})
            print(show(f"{name}={v}", score_dump(dump, w)), file=sys.stdout, flush=True)


if __name__ == "__main__":
    main()
