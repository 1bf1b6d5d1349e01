"""Fact extraction on LoCoMo turns: throughput and turn-level agreement with the gold observations.

Usage: .venv/bin/python bench/locomo_extract.py [path/to/locomo.json] [--json out.json]

Every turn is fed as a user message with metadata speaker = the turn's speaker and
self = true (both speakers are remembered: a speaker without it is someone else).
- recall: share of gold ``observation`` facts whose dia_id has at least one GUMem fact;
- precision: share of GUMem facts that come from a turn with at least one gold fact.
The data is CC BY-NC: it is read from where the user keeps it, never copied here.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from extract.facts import extract_chat, extract_chats  # noqa: E402
from extract.nlp import load_chinese, load_english  # noqa: E402
from extract.types import Extraction, MessageRecord  # noqa: E402

DEFAULT = REPO.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
DIA = re.compile(r"D\d+:\d+")


def _session_time(raw: str | None) -> datetime:
    if raw:
        try:
            return datetime.strptime(raw.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
        except ValueError:
            pass
    return datetime(2023, 1, 1, tzinfo=UTC)


def load(path: Path) -> tuple[list[MessageRecord], dict[str, int], int]:
    """Turns as MessageRecords, gold facts per "conv/dia_id", count of malformed gold ids."""
    data: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    turns: list[MessageRecord] = []
    gold: Counter[str] = Counter()
    malformed = 0
    for conv in data:
        cid, c = conv["sample_id"], conv["conversation"]
        for key, value in c.items():
            if not (key.startswith("session_") and isinstance(value, list)):
                continue
            ts = _session_time(c.get(f"{key}_date_time"))
            for turn in value:
                turns.append(
                    MessageRecord(
                        message_id=f"{cid}/{turn['dia_id']}",
                        user_id=cid,
                        session_id=f"{cid}/{key}",
                        role="user",
                        content=turn.get("text", ""),
                        timestamp=ts,
                        metadata={"speaker": turn["speaker"], "self": True},
                    )
                )
        for per_speaker in conv.get("observation", {}).values():
            for items in per_speaker.values():
                for _text, dia in items:
                    ids = DIA.findall(str(dia))
                    malformed += not (isinstance(dia, str) and DIA.fullmatch(dia))
                    for dia_id in ids[:1] or ():
                        gold[f"{cid}/{dia_id}"] += 1
    return turns, dict(gold), malformed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("path", nargs="?", default=str(DEFAULT))
    ap.add_argument("--json", dest="out", default=None, help="write the figures here")
    args = ap.parse_args()
    en, zh = load_english(), load_chinese()
    turns, gold, malformed = load(Path(args.path))
    en("warm up")

    t0 = time.perf_counter()
    for _doc in en.pipe(m.content for m in turns):
        pass
    t_parse = time.perf_counter() - t0  # spaCy alone, the floor for any extraction
    t0 = time.perf_counter()
    batched = extract_chats(turns, en, zh)
    t_batch = time.perf_counter() - t0
    t0 = time.perf_counter()
    parallel = extract_chats(turns, en, zh, n_process=2)
    t_par = time.perf_counter() - t0
    t0 = time.perf_counter()
    single: list[Extraction] = [extract_chat(m, en, zh) for m in turns]
    t_single = time.perf_counter() - t0
    assert single == batched == parallel, "batched and one-by-one extraction differ"

    facts_by_turn = {m.message_id: len(x.facts) for m, x in zip(turns, batched, strict=True)}
    n_facts = sum(facts_by_turn.values())
    gold_total = sum(gold.values())
    gold_hit = sum(n for dia, n in gold.items() if facts_by_turn.get(dia, 0))
    facts_on_gold = sum(n for dia, n in facts_by_turn.items() if dia in gold)
    turns_with_facts = sum(1 for n in facts_by_turn.values() if n)
    reasons = Counter(r.reason for x in batched for r in x.rejections)
    kinds = Counter(f.kind for x in batched for f in x.facts)
    figures = {
        "turns": len(turns),
        "facts": n_facts,
        "turns_with_facts": turns_with_facts,
        "throughput_msgs_per_s_batched": round(len(turns) / t_batch, 1),
        "throughput_msgs_per_s_single": round(len(turns) / t_single, 1),
        "throughput_msgs_per_s_2_processes": round(len(turns) / t_par, 1),
        "spacy_parse_only_msgs_per_s": round(len(turns) / t_parse, 1),
        "gold_facts": gold_total,
        "gold_turns": len(gold),
        "gold_malformed_ids": malformed,
        "recall_gold_facts": round(gold_hit / gold_total, 3) if gold_total else 0.0,
        "recall_gold_turns": round(sum(1 for d in gold if facts_by_turn.get(d, 0)) / len(gold), 3)
        if gold
        else 0.0,
        "precision_facts": round(facts_on_gold / n_facts, 3) if n_facts else 0.0,
        "precision_turns": round(
            sum(1 for d, n in facts_by_turn.items() if n and d in gold) / turns_with_facts, 3
        )
        if turns_with_facts
        else 0.0,
        "baseline_precision_all_turns": round(len(gold) / len(turns), 3) if turns else 0.0,
        "kinds": dict(kinds.most_common()),
        "rejections": dict(reasons.most_common()),
    }
    print(json.dumps(figures, indent=2, ensure_ascii=False))
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
