"""Fact extraction on LoCoMo turns: throughput and turn-level agreement with the gold observations.

Usage: .venv/bin/python bench/locomo_extract.py [path/to/locomo.json] [--json out.json]

Every turn is fed as a user message with metadata speaker = the turn's speaker and
self = true (both speakers are remembered: a speaker without it is someone else).
- recall: share of gold ``observation`` facts whose dia_id has at least one GUMem fact;
- precision: share of GUMem facts that come from a turn with at least one gold fact.

Content check (does a fact say what the observation says?), on the facts of the same turn
(the observation's evidence dia_id). Content words: lower-cased word tokens minus spaCy's
English stop words, the conversation's two speaker names and "user", each reduced by a small
suffix stemmer (stem()). Text A "shares the key content words" of text B when at least
CONTENT_SHARE (0.5) of B's content words, and at least CONTENT_MIN_SHARED (2, or all of
them when B has one), are among A's.
- content recall: share of observations whose content words some fact of their turn shares;
- content precision: share of GUMem facts whose content words some observation of their
  turn shares (a fact from a turn without observations never matches); also given over
  the facts of gold turns only. Overall and per conversation, and at shares 0.3 / 0.7.
`--quick` runs one extraction pass (no throughput comparison).
The data is CC BY-NC: it is read from where the user keeps it, never copied here.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from extract.chat.facts import extract_chat, extract_chats  # noqa: E402
from extract.nlp import load_chinese, load_english  # noqa: E402
from extract.types import Extraction, MessageRecord  # noqa: E402

DEFAULT = REPO.parent / "shared" / "data" / "locomo" / "locomo-dev.json"
DIA = re.compile(r"D\d+:\d+")
WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
CONTENT_SHARE = 0.5  # share of the observation's content words a fact must have
CONTENT_MIN_SHARED = 2
DOUBLED = re.compile(r"([bdfgkmnprt])\1$")  # runn -> run, plann -> plan (not ll, ss)


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


def stem(word: str) -> str:
    """A small suffix stemmer: painted/painting/paints -> paint, loved/loves -> lov,
    studies -> study, running -> run. Crude on purpose: the same word family meets."""
    w = word.removesuffix("'s")
    for suffix, repl in (("ies", "y"), ("ied", "y"), ("sses", "ss")):
        if w.endswith(suffix) and len(w) > len(suffix) + 2:
            return w[: -len(suffix)] + repl
    for suffix in ("ing", "ed", "es", "s", "ly"):
        if w.endswith(suffix) and len(w) - len(suffix) >= 3 and not w.endswith("ss"):
            w = w[: -len(suffix)]
            w = DOUBLED.sub(r"\1", w)
            break
    return w.removesuffix("e") if len(w) > 3 else w


def content_words(text: str, drop: Iterable[str] = ()) -> set[str]:
    """Lower-cased word stems minus stop words and the `drop` names."""
    from spacy.lang.en.stop_words import STOP_WORDS

    skip = {d.lower() for d in drop} | {"user"}
    words = (w.removesuffix("'s") for w in WORD.findall(text.lower()))
    return {stem(w) for w in words if w not in STOP_WORDS and w not in skip and len(w) > 1}


def shares_content(reference: set[str], other: set[str], share: float = CONTENT_SHARE) -> bool:
    """`other` holds the key content words of `reference` (see the module doc)."""
    if not reference:
        return False
    shared = len(reference & other)
    return shared >= min(CONTENT_MIN_SHARED, len(reference)) and shared >= share * len(reference)


@dataclass(frozen=True)
class Observation:
    conv: str
    turns: tuple[str, ...]  # "conv/dia_id" of its evidence
    words: frozenset[str]


def load_observations(path: Path) -> tuple[list[Observation], dict[str, tuple[str, ...]]]:
    """Every gold observation with its content words, and each conversation's speakers."""
    data: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    out: list[Observation] = []
    speakers: dict[str, tuple[str, ...]] = {}
    for conv in data:
        cid, c = conv["sample_id"], conv["conversation"]
        names = tuple(str(c[k]) for k in ("speaker_a", "speaker_b") if c.get(k))
        speakers[cid] = names
        for per_speaker in conv.get("observation", {}).values():
            for items in per_speaker.values():
                for text, dia in items:
                    turns = tuple(f"{cid}/{d}" for d in dict.fromkeys(DIA.findall(str(dia))))
                    if turns:
                        out.append(Observation(cid, turns, frozenset(content_words(text, names))))
    return out, speakers


def content_check(
    turns: Sequence[MessageRecord],
    extractions: Sequence[Extraction],
    observations: Sequence[Observation],
    speakers: dict[str, tuple[str, ...]],
    share: float = CONTENT_SHARE,
) -> dict[str, Any]:
    """Content precision and recall, overall and per conversation."""
    facts: dict[str, list[set[str]]] = defaultdict(list)  # turn -> content words of its facts
    for m, x in zip(turns, extractions, strict=True):
        for f in x.facts:
            facts[m.message_id].append(content_words(f.content, speakers.get(m.user_id, ())))
    gold_turns: dict[str, list[set[str]]] = defaultdict(list)
    for o in observations:
        for t in o.turns:
            gold_turns[t].append(set(o.words))
    # [matched, total] per conversation: observations, facts, facts of gold turns
    obs: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    fac: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    fac_gold: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for o in observations:
        words = set(o.words)
        obs[o.conv][0] += any(
            shares_content(words, f, share) for t in o.turns for f in facts.get(t, ())
        )
        obs[o.conv][1] += 1
    for m in turns:
        gold_here = gold_turns.get(m.message_id, [])
        for words in facts.get(m.message_id, ()):
            hit = any(shares_content(words, g, share) for g in gold_here)
            for counts in (fac, fac_gold) if gold_here else (fac,):
                counts[m.user_id][0] += hit
                counts[m.user_id][1] += 1

    def ratio(*pairs: list[int]) -> float:
        hit, total = sum(p[0] for p in pairs), sum(p[1] for p in pairs)
        return round(hit / total, 3) if total else 0.0

    return {
        "share": share,
        "min_shared": CONTENT_MIN_SHARED,
        "recall": ratio(*obs.values()),
        "precision": ratio(*fac.values()),
        "precision_on_gold_turns": ratio(*fac_gold.values()),
        "observations_matched": sum(v[0] for v in obs.values()),
        "observations": sum(v[1] for v in obs.values()),
        "facts_matched": sum(v[0] for v in fac.values()),
        "facts": sum(v[1] for v in fac.values()),
        "per_conversation": {
            c: {"recall": ratio(obs[c]), "precision": ratio(fac[c])}
            for c in sorted(set(obs) | set(fac))
        },
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("path", nargs="?", default=str(DEFAULT))
    ap.add_argument("--json", dest="out", default=None, help="write the figures here")
    ap.add_argument("--quick", action="store_true", help="one extraction pass, no timings")
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
    t_par = t_single = None
    if not args.quick:
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
    figures: dict[str, Any] = {
        "turns": len(turns),
        "facts": n_facts,
        "turns_with_facts": turns_with_facts,
        "throughput_msgs_per_s_batched": round(len(turns) / t_batch, 1),
        "throughput_msgs_per_s_single": round(len(turns) / t_single, 1) if t_single else None,
        "throughput_msgs_per_s_2_processes": round(len(turns) / t_par, 1) if t_par else None,
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
    observations, speakers = load_observations(Path(args.path))
    figures["content"] = content_check(turns, batched, observations, speakers)
    figures["content_by_share"] = {
        str(sh): {
            k: v
            for k, v in content_check(turns, batched, observations, speakers, sh).items()
            if k in ("recall", "precision", "precision_on_gold_turns")
        }
        for sh in (0.3, 0.7)
    }
    print(json.dumps(figures, indent=2, ensure_ascii=False))
    if args.out:
        Path(args.out).write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
