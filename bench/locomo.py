"""LoCoMo evidence retrieval: GUMem recall vs fair BM25, dense and hybrid search over the turns.

Each conversation becomes one user's memory (user id = sample_id, one session per LoCoMo
session, role "user", metadata {"speaker": name, "self": true}, turns a minute apart from
the session's date time). Each question is a recall with now = one minute after the last turn.

GUMem is asked once per question (recall(limit=20)); each system's one ranking is cut
at k = 5, 10, 20. Rank budget: GUMem's ranked items are expanded into their distinct
source messages in rank order (a Summary through the sources of its Facts that bear on
the query, `MemoryItem.relevantFactIds`: those among the ranked evidence) and the first k
messages are kept, so GUMem and the baselines are scored on the same budget of k turns.
Evidence recall@k = share of a question's evidence dia_ids among those k messages; ids
are parsed with D<n>:<n> (so "D8:6; D9:17" gives two), ids not in the conversation are
counted and left out; questions with no usable evidence are counted and skipped.
Tokens of formattedContext: whitespace-separated words + one per CJK character.

Baselines (same run, same turns): each turn indexed as "<speaker>: <text>" (the questions
name the speaker), BM25 (bm25s, English stop words), dense (GUMem's own embedding model,
e5 passage/query prefixes) and their reciprocal-rank fusion (k = 60, top 100 of each). The
old baselines over the bare text without the speaker are kept as "bm25 (no names)" and
"dense (no names)".

Context: the share of questions whose LoCoMo `answer` (lower-cased, punctuation and
whitespace folded) appears in the context an agent gets. GUMem's is its formattedContext;
each baseline's is its ranked turns, one line each ("- [id] (7 May 2023) Speaker: text",
the shape of GUMem's message lines, dated the same way), added in rank order while the
total stays within the token count of GUMem's context for that same question (equal
tokens, question by question).
Session recall_all@k: 1 when every evidence session is among the sessions of the first k
ranked turns (the same k-turn budget as turn recall), else 0.

The data is CC BY-NC 4.0: it is read from where it lies, never copied into the project.
Usage: python -m bench.locomo --data ../shared/data/locomo/locomo-dev.json --out out.json
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import defaultdict
from datetime import UTC, datetime, timedelta
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
    write_json,
)
from core.settings import ROOT
from graph import reads
from service.memory import Memory
from service.recall import dated
from service.runtime import Runtime

KS = (5, 10, 20)
DIA = re.compile(r"D(\d+):(\d+)")
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "locomo" / "locomo-dev.json"


def tokens(text: str) -> int:
    """Whitespace words plus one token per CJK character."""
    return len(CJK.findall(text)) + len(CJK.sub(" ", text).split())


def session_time(raw: str | None, fallback: datetime) -> datetime:
    """'1:56 pm on 8 May, 2023' (UTC); the fallback when missing or unparsable."""
    if raw:
        for f in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y"):
            try:
                return datetime.strptime(raw.strip(), f).replace(tzinfo=UTC)
            except ValueError:
                pass
    return fallback


def turn_text(t: dict[str, Any]) -> str:
    text = str(t.get("text") or "").strip()
    if t.get("blip_caption"):
        text = f"{text} [shares an image: {t['blip_caption']}]".strip()
    return text or "(empty)"


def load_conversation(conv: dict[str, Any]) -> tuple[str, list[dict[str, Any]], datetime]:
    """(user id, messages in add_messages shape, 'now' after the last turn)."""
    cid = str(conv["sample_id"])
    c = conv["conversation"]
    nums = sorted(int(m.group(1)) for k in c if (m := re.fullmatch(r"session_(\d+)", k)))
    msgs: list[dict[str, Any]] = []
    last: datetime | None = None
    for n in nums:
        fallback = last + timedelta(days=1) if last else datetime(2023, 1, 1, tzinfo=UTC)
        start = session_time(c.get(f"session_{n}_date_time"), fallback)
        for i, t in enumerate(c[f"session_{n}"] or []):
            ts = start + timedelta(minutes=i)
            msgs.append(
                {
                    "id": f"{cid}:{t['dia_id']}",
                    "userId": cid,
                    "sessionId": f"{cid}:S{n}",
                    "role": "user",
                    "content": turn_text(t),
                    "timestamp": ts.isoformat(),
                    "eventType": "message",
                    "page": "chat",
                    "metadata": {"speaker": t.get("speaker"), "self": True},
                }
            )
            last = ts if last is None else max(last, ts)
    return cid, msgs, (last or datetime(2023, 1, 1, tzinfo=UTC)) + timedelta(minutes=1)


def named(m: dict[str, Any]) -> str:
    """A turn as the fair baselines index it: its speaker's name, then its text."""
    speaker = (m.get("metadata") or {}).get("speaker")
    return f"{speaker}: {m['content']}" if speaker else str(m["content"])


_PUNCT = re.compile(r"[^\w\s]")


def norm(text: str) -> str:
    """Lower-cased, punctuation dropped, whitespace folded: how answers are matched."""
    return " ".join(_PUNCT.sub(" ", text.lower()).split())


def answer_in(answer: Any, context: str) -> bool:
    a = norm(str(answer))
    return bool(a) and f" {a} " in f" {norm(context)} "


def budget_context(ranked: list[str], line: dict[str, str], budget: int) -> str:
    """The ranked turns, one line each, in rank order while within `budget` tokens."""
    out: list[str] = []
    used = 0
    for m in ranked:
        n = tokens(line[m])
        if used + n > budget:
            break
        out.append(line[m])
        used += n
    return "\n".join(out)


def baseline_line(m: dict[str, Any], text: str) -> str:
    """A baseline's context line for a turn: the shape of GUMem's message lines, dated the
    same way ("- [id] (7 May 2023) Speaker: text"), so no system gains by format alone."""
    ts = datetime.fromisoformat(m["timestamp"])
    return f"- [{m['id']}] {dated((ts, ts), 'en')}{text}"


def rrf(rankings: list[list[str]], k: int = 60) -> list[str]:
    """Reciprocal-rank fusion: sum of 1 / (k + rank) over the rankings, best first."""
    score: dict[str, float] = defaultdict(float)
    for ranking in rankings:
        for r, i in enumerate(ranking, 1):
            score[i] += 1.0 / (k + r)
    return sorted(score, key=lambda i: (-score[i], i))


def evidence(q: dict[str, Any], cid: str, known: set[str]) -> tuple[list[str], int, int]:
    """(usable message ids, malformed-but-split count, unknown id count)."""
    ids: list[str] = []
    malformed = unknown = 0
    for raw in q.get("evidence") or []:
        found = DIA.findall(str(raw))
        if len(found) != 1 or not re.fullmatch(r"\s*D\d+:\d+\s*", str(raw)):
            malformed += 1
        for s, t in found:
            mid = f"{cid}:D{int(s)}:{int(t)}"
            if mid in known:
                if mid not in ids:
                    ids.append(mid)
            else:
                unknown += 1
    return ids, malformed, unknown


def first_k(ranked: list[str], k: int) -> list[str]:
    out: list[str] = []
    seen: set[str] = set()
    for m in ranked:
        if m not in seen:
            seen.add(m)
            out.append(m)
            if len(out) == k:
                break
    return out


async def gumem_messages(
    memory: Memory, tenant: str, user: str, question: str, now: datetime, k: int
) -> tuple[list[str], str, int]:
    """GUMem's first k ranked source messages (mid-term, then long-term items) for
    recall(limit=k), its formattedContext and its number of items."""
    r = await memory.recall(tenant, user, question, now=now, limit=k)
    items = list(r.mid_term) + list(r.long_term)
    fids = sorted({f for it in items if it.kind == "summary" for f in it.relevant_fact_ids})
    facts = await reads.facts_by_ids(memory.db, tenant, fids) if fids else {}
    ranked: list[str] = []
    for it in items:
        if it.kind == "summary":
            for f in it.relevant_fact_ids:
                ranked += [s.message_id for s in facts[f].sources] if f in facts else []
        else:
            ranked += it.source_message_ids
    return first_k(ranked, k), r.formatted, len(items)


class Dense:
    def __init__(self, memory: Memory, ids: list[str], texts: list[str]) -> None:
        assert memory.pipeline is not None
        self.emb = memory.pipeline.models.embedder
        self.ids = ids
        self.m = np.asarray(self.emb.embed_passages(texts), dtype=np.float32)

    def search(self, q: str, k: int, v: np.ndarray | None = None) -> list[str]:
        if v is None:
            v = np.asarray(self.emb.embed_queries([q])[0], dtype=np.float32)
        order = np.argsort(-(self.m @ v), kind="stable")[:k]
        return [self.ids[i] for i in order]


class Bm25:
    def __init__(self, ids: list[str], texts: list[str]) -> None:
        import bm25s

        self.bm25s = bm25s
        self.ids = ids
        self.r = bm25s.BM25()
        self.r.index(
            bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False
        )

    def search(self, q: str, k: int) -> list[str]:
        toks = self.bm25s.tokenize([q], stopwords="en", show_progress=False)
        if not toks.vocab:  # nothing left after stop words
            return []
        docs, scores = self.r.retrieve(toks, k=min(k, len(self.ids)), show_progress=False)
        return [self.ids[int(i)] for i, sc in zip(docs[0], scores[0], strict=True) if sc > 0]


# the systems compared, in table order: (key, label)
SYSTEMS = (
    ("gumem", "GUMem"),
    ("hybrid", "RRF hybrid"),
    ("bm25", "BM25"),
    ("dense", "dense"),
    ("bm25_raw", "BM25 (no names)"),
    ("dense_raw", "dense (no names)"),
)
DEPTH = 100  # how deep each baseline ranks (the fusion's input)


def sessions_of(ids: list[str]) -> set[str]:
    """'conv-26:D3:5' -> 'conv-26:D3'."""
    return {i.rsplit(":", 1)[0] for i in ids}


def score(found: list[str], gold: list[str]) -> float:
    return len(set(found) & set(gold)) / len(gold)


async def run(args: argparse.Namespace, h: Neo4jHandle) -> dict[str, Any]:
    data = json.loads(Path(args.data).read_text(encoding="utf-8"))
    if args.conversations:
        data = data[: args.conversations]
    rt = Runtime(settings_for(h, process_mode="sync"))
    memory = await rt.start()
    tenant = args.tenant
    per_q: list[dict[str, Any]] = []
    counts = {"malformed_evidence": 0, "unknown_evidence": 0, "no_evidence": 0, "turns": 0}
    t_ingest = t_recall = 0.0
    kmax = max(KS)
    try:
        for conv in data:
            cid, msgs, now = load_conversation(conv)
            counts["turns"] += len(msgs)
            t0 = time.perf_counter()
            stored = await memory.messages_by_ids(tenant, [m["id"] for m in msgs])
            if args.reuse and len(stored) == len(msgs):
                log(f"{cid}: {len(msgs)} turns already stored (--reuse): not ingested again")
                msgs_to_add: list[dict[str, Any]] = []
            else:
                msgs_to_add = msgs
            for i in tqdm(
                range(0, len(msgs_to_add), args.batch),
                desc=f"ingest {cid}",
                unit="batch",
                leave=False,
            ):
                await memory.add_messages(tenant, msgs_to_add[i : i + args.batch])
            if memory.pipeline is not None:  # what an outage left queued
                while await memory.pipeline.process_pending(limit=1000):
                    pass
            dt = time.perf_counter() - t0
            t_ingest += dt
            log(f"{cid}: {len(msgs)} turns ingested in {dt:.1f}s")
            ids = [m["id"] for m in msgs]
            known = set(ids)
            texts = [named(m) for m in msgs]
            raw = [m["content"] for m in msgs]
            line = {m["id"]: baseline_line(m, t) for m, t in zip(msgs, texts, strict=True)}
            dense, bm25 = Dense(memory, ids, texts), Bm25(ids, texts)
            dense_raw, bm25_raw = Dense(memory, ids, raw), Bm25(ids, raw)
            t0 = time.perf_counter()
            for q in tqdm(conv.get("qa") or [], desc=f"recall {cid}", unit="q", leave=False):
                gold, mal, unk = evidence(q, cid, known)
                counts["malformed_evidence"] += mal
                counts["unknown_evidence"] += unk
                if not gold:
                    counts["no_evidence"] += 1
                    continue
                question = str(q.get("question") or "").strip() or "?"
                row: dict[str, Any] = {
                    "conv": cid,
                    "category": str(q.get("category")),
                    "evidence": len(gold),
                }
                # one ranking per system, cut at each k (same k-turn budget)
                t1 = time.perf_counter()
                g, ctx, items = await gumem_messages(memory, tenant, cid, question, now, kmax)
                row["gumem_ms"] = (time.perf_counter() - t1) * 1000
                qv = np.asarray(dense.emb.embed_queries([question])[0], dtype=np.float32)
                b, d = bm25.search(question, DEPTH), dense.search(question, DEPTH, qv)
                ranked = {
                    "gumem": g,
                    "hybrid": rrf([b, d]),
                    "bm25": b,
                    "dense": d,
                    "bm25_raw": bm25_raw.search(question, DEPTH),
                    "dense_raw": dense_raw.search(question, DEPTH, qv),
                }
                budget = tokens(ctx)
                row["gumem_tokens"], row["gumem_items"], row["gumem_msgs"] = budget, items, len(g)
                gold_sessions = sessions_of(gold)
                answer = q.get("answer")
                for sys_, found in ranked.items():
                    for k in KS:
                        row[f"{sys_}@{k}"] = score(found[:k], gold)
                        row[f"{sys_}_sess@{k}"] = float(
                            gold_sessions <= sessions_of(first_k(found, k))
                        )
                    if answer is not None:
                        text = ctx if sys_ == "gumem" else budget_context(found, line, budget)
                        row[f"{sys_}_answer"] = float(answer_in(answer, text))
                per_q.append(row)
            t_recall += time.perf_counter() - t0
            # partial results after each conversation, in case a long run is cut short
            part = summarise(per_q, counts, data.index(conv) + 1, t_ingest, t_recall)
            write_json(Path(args.out), part | {"partial": True})
    finally:
        await rt.close()
    return summarise(per_q, counts, len(data), t_ingest, t_recall)


def _mean(rows: list[dict[str, Any]], key: str) -> float | None:
    xs = [r[key] for r in rows if key in r]
    return float(np.mean(xs)) if xs else None


def _metrics(rows: list[dict[str, Any]], sys_: str) -> dict[str, Any]:
    if not rows:
        return {}
    out: dict[str, Any] = {f"recall@{k}": _mean(rows, f"{sys_}@{k}") for k in KS}
    out["all_found@10"] = float(np.mean([r[f"{sys_}@10"] == 1.0 for r in rows]))
    for k in (5, 10):
        out[f"session_recall_all@{k}"] = _mean(rows, f"{sys_}_sess@{k}")
    out["answer_in_context"] = _mean(rows, f"{sys_}_answer")
    out["questions"] = len(rows)
    return out


def summarise(
    per_q: list[dict[str, Any]],
    counts: dict[str, int],
    n_conv: int,
    t_ingest: float,
    t_recall: float,
) -> dict[str, Any]:
    scored = [r for r in per_q if r["category"] != "5"]
    adversarial = [r for r in per_q if r["category"] == "5"]
    systems: dict[str, Any] = {}
    for s, _label in SYSTEMS:
        m = _metrics(scored, s)
        cats: dict[str, Any] = defaultdict(dict)
        for c in sorted({r["category"] for r in per_q}):
            cats[c] = _metrics([r for r in per_q if r["category"] == c], s)
        m["by_category"] = dict(cats)
        m["adversarial_5"] = _metrics(adversarial, s)
        systems[s] = m
    g = systems["gumem"]
    for key in ("tokens", "items", "msgs"):
        g[f"mean_{key}_limit{max(KS)}"] = (
            float(np.mean([r[f"gumem_{key}"] for r in scored])) if scored else None
        )
    ms = sorted(r["gumem_ms"] for r in per_q)
    g["recall_ms_p50"] = float(np.percentile(ms, 50)) if ms else None
    g["recall_ms_p95"] = float(np.percentile(ms, 95)) if ms else None
    return {
        "benchmark": "locomo-evidence-recall",
        "machine": machine(),
        "systems": systems,
        "questions": len(per_q),
        "questions_scored_cat1_4": len(scored),
        "questions_adversarial_5": len(adversarial),
        "conversations": n_conv,
        **counts,
        "ingest_seconds": t_ingest,
        "recall_seconds": t_recall,
        "notes": {
            "rank_budget": "ranked items expanded into distinct source messages in rank "
            "order; first k messages kept (same k-turn budget for all systems)",
            "baselines": "turns indexed as '<speaker>: <text>'; bm25s with English stop "
            "words; dense with GUMem's embedding model; hybrid = reciprocal-rank fusion "
            "(k=60) of the BM25 and dense top 100; '(no names)' = the old baselines over the "
            "bare text",
            "overall": "overall metrics are over categories 1-4; category 5 (adversarial) "
            "is reported apart",
            "tokens": "formattedContext tokens = whitespace words + 1 per CJK character",
            "answer_in_context": "normalised LoCoMo answer is a substring of the context; "
            "GUMem: its formattedContext; baselines: their ranked turns as '- [id] (date) "
            "Speaker: text' lines within the same token count as GUMem's context for that question",
            "session_recall_all": "every evidence session among the sessions of the first k "
            "ranked turns",
            "gumem_items": "one recall(limit=20) per question; its mid-term then long-term "
            "items in order; short-term (recent turns, not query-ranked) left "
            "out of the ranking; tokens are of that call's whole formattedContext",
            "evidence": "ids parsed with D<n>:<n>; unknown ids left out; questions without "
            "usable evidence skipped",
        },
    }


def report(res: dict[str, Any]) -> str:
    s = res["systems"]
    keys = [k for k, _ in SYSTEMS]
    labels = [label for _, label in SYSTEMS]
    metrics = (
        "recall@5",
        "recall@10",
        "recall@20",
        "all_found@10",
        "session_recall_all@5",
        "session_recall_all@10",
        "answer_in_context",
    )
    rows = [[m] + [s[n].get(m) for n in keys] for m in metrics]
    cats = sorted(s["gumem"]["by_category"])
    for c in cats:
        rows.append(
            [f"cat {c} recall@10 (n={s['gumem']['by_category'][c].get('questions')})"]
            + [s[n]["by_category"].get(c, {}).get("recall@10") for n in keys]
        )
    for c in cats:
        if c != "5":
            rows.append(
                [f"cat {c} answer in context"]
                + [s[n]["by_category"].get(c, {}).get("answer_in_context") for n in keys]
            )
    out = [
        table(
            ["metric (cats 1-4 unless noted)", *labels],
            rows,
            f"LoCoMo evidence recall: {res['conversations']} conversations, "
            f"{res['questions']} questions ({res['questions_scored_cat1_4']} in cats 1-4), "
            f"{res['turns']} turns",
        )
    ]
    g, h = s["gumem"], s["hybrid"]
    side = [
        [m, g.get(m), h.get(m), _diff(g.get(m), h.get(m))]
        for m in ("recall@5", "recall@10", "recall@20", "session_recall_all@10")
    ]
    side += [
        [f"cat {c} recall@10", a, b_, _diff(a, b_)]
        for c in cats
        if c != "5"
        for a, b_ in [
            (
                g["by_category"][c].get("recall@10"),
                h["by_category"].get(c, {}).get("recall@10"),
            )
        ]
    ]
    side.append(["answer in context", g.get("answer_in_context"), h.get("answer_in_context"), None])
    side[-1][3] = _diff(side[-1][1], side[-1][2])
    out.append(table(["GUMem vs RRF hybrid", "GUMem", "hybrid", "GUMem - hybrid"], side))
    out.append(
        "rank budget: items expanded into distinct source messages in rank order, "
        "first k messages kept (same k-turn budget for every system); baselines index "
        "'<speaker>: <text>'; answer in context at GUMem's token count, question by question"
    )
    kmax = max(KS)
    if g.get(f"mean_tokens_limit{kmax}") is not None:
        out.append(
            f"GUMem recall(limit={kmax}), one call per question: mean formattedContext "
            f"tokens {g[f'mean_tokens_limit{kmax}']:.0f} (whitespace words + 1 per CJK "
            f"char), mean items {g[f'mean_items_limit{kmax}']:.1f}, mean distinct "
            f"source messages kept {g[f'mean_msgs_limit{kmax}']:.1f}; in-process recall "
            f"p50 {g['recall_ms_p50']:.1f} ms, p95 {g['recall_ms_p95']:.1f} ms"
        )
    out.append(
        f"evidence: {res['malformed_evidence']} malformed ids split, "
        f"{res['unknown_evidence']} unknown ids left out, {res['no_evidence']} "
        f"questions without evidence skipped; ingest {res['ingest_seconds']:.0f}s "
        f"({res['turns'] / max(res['ingest_seconds'], 1e-9):.1f} turns/s), "
        f"recall loop {res['recall_seconds']:.0f}s"
    )
    return "\n".join(out)


def _diff(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a - b


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_neo4j_args(p)
    p.add_argument("--data", default=str(DEFAULT_DATA))
    p.add_argument("--out", default=str(RESULTS / "locomo.json"))
    p.add_argument("--conversations", type=int, default=0, help="only the first N (0: all)")
    p.add_argument("--batch", type=int, default=1000)
    p.add_argument("--tenant", default="bench-locomo")
    p.add_argument(
        "--reuse",
        action="store_true",
        help="keep the private Neo4j's data and skip conversations already stored "
        "(recall-only passes over one ingest; the ingest time then counts only what was added)",
    )
    args = p.parse_args(argv)
    return run_bench(args, run, report, fresh=not args.reuse)


if __name__ == "__main__":
    main()
