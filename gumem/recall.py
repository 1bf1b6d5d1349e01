"""Query Memory: Topics → their active Summaries → supporting Facts → recent Messages."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from extract.decay import recall_decay
from extract.lang import detect_lang
from extract.timecues import Window

LONG_TERM_KINDS = ("identity", "preference")
COVERED = 0.86  # a Summary this close to the query covers it on its own


@dataclass
class Item:
    id: str
    kind: str  # summary / fact / message
    content: str
    score: float
    reason: str
    topic: str | None = None
    confidence: float | None = None
    timestamp: datetime | None = None
    source_fact_ids: list[str] = field(default_factory=list)
    source_message_ids: list[str] = field(default_factory=list)


@dataclass
class Recall:
    query: str
    short_term: list[Item]
    mid_term: list[Item]
    long_term: list[Item]
    formatted: str
    window: Window | None


def _overlaps(start: datetime | None, end: datetime | None, w: Window | None) -> bool:
    if w is None:
        return True
    if start is None or end is None:
        return False
    return start < w.end and end >= w.start


def _ft(hits: list[dict[str, Any]]) -> dict[str, float]:
    top = max((h["score"] for h in hits), default=0.0) or 1.0
    return {h["id"]: h["score"] / top for h in hits}


def rank_summaries(
    c: dict[str, Any], now: datetime, w: Window | None
) -> list[tuple[float, float, dict[str, Any]]]:
    """(score, relevance, summary): relevance × confidence × boost × decay."""
    ft = _ft(c["summary_hits"])
    out = []
    for s in c["summaries"]:
        if not _overlaps(s["event_start"], s["event_end"], w):
            continue
        rel = 0.6 * (s["sv"] or 0.0) + 0.25 * (s["tv"] or 0.0) + 0.15 * ft.get(s["summary_id"], 0.0)
        decay = recall_decay(
            s["decay_factor"] or 0.01,
            s["event_end"],
            now,
            s["retrieval_boost"] if s["retrieval_boost"] is not None else 1.0,
            s["memory_status"] or "active",
        )
        out.append((rel * (s["confidence"] or 0.0) * decay, rel, s))
    out.sort(key=lambda t: (-t[0], t[2]["summary_id"]))
    return out


def choose(
    c: dict[str, Any],
    facts: dict[str, dict[str, Any]],
    query: str,
    now: datetime,
    limit: int,
    w: Window | None,
    ranked: list[tuple[float, float, dict[str, Any]]],
) -> Recall:
    """Pick and order the context from the candidates (pure; graph/ fetched them).

    `w` is the query's time window and `ranked` rank_summaries(c, now, w): the caller has
    them already, having used them to choose which facts to fetch."""
    mid: list[Item] = []
    seen: set[str] = set()
    min_rel = 0.78
    chosen = [(sc, rel, s) for sc, rel, s in ranked if rel >= min_rel or w is not None]
    near = {f["id"]: f["fv"] for f in c["fact_near"]}
    fact_ft = _ft(c["fact_hits"])

    def fact_rel(i: str) -> float:  # dense and full-text evidence weigh alike
        return float(0.5 * near.get(i, 0.0) + 0.5 * fact_ft.get(i, 0.0))

    for sc, rel, s in chosen[: max(1, limit // 3)]:
        why = f"topic '{s['topic']}' matches the query (relevance {rel:.2f})"
        if w is not None:
            why += f"; within '{w.cue}'"
        mid.append(
            Item(
                s["summary_id"],
                "summary",
                s["content"],
                round(sc, 4),
                why,
                topic=s["topic"],
                confidence=s["confidence"],
                timestamp=s["event_end"],
                # its evidence, the facts closest to the query first
                source_fact_ids=sorted(s["source_facts"], key=lambda f: -fact_rel(f)),
            )
        )
        seen.add(s["summary_id"])
    covered = bool(chosen) and chosen[0][1] >= COVERED
    support = sorted(
        {fid for it in mid for fid in it.source_fact_ids}, key=lambda i: (-fact_rel(i), i)
    )
    others = sorted(set(near) | set(fact_ft), key=lambda i: (-fact_rel(i), i))
    for fid in support + ([] if covered else others):
        f = facts.get(fid)
        if f is None or fid in seen or len(mid) >= limit:
            continue
        if not _overlaps(f["time_start"], f["time_end"], w):
            continue
        seen.add(fid)
        rel = fact_rel(fid)
        why = "supports a chosen summary" if fid in support else f"close to the query ({rel:.2f})"
        mid.append(
            Item(
                fid,
                "fact",
                f["content"],
                round(rel * (f["confidence"] or 1.0), 4),
                why,
                topic=f.get("topic"),
                confidence=f["confidence"],
                timestamp=f["time_end"],
                source_message_ids=[m["message_id"] for m in f["sources"]],
            )
        )
    if not covered:
        msg_ft = {m["message_id"]: m for m in c["message_hits"]}
        top_ft = max((m["score"] for m in c["message_hits"]), default=0.0) or 1.0
        by_id = {m["message_id"]: m for m in c["messages"]} | msg_ft

        def msg_rel(m: dict[str, Any]) -> float:
            mid_ = m["message_id"]
            dense = by_id[mid_].get("mv") or 0.0
            text = msg_ft[mid_]["score"] / top_ft if mid_ in msg_ft else 0.0
            return float(0.5 * dense + 0.5 * text)

        for m in sorted(by_id.values(), key=lambda m: (-msg_rel(m), m["message_id"])):
            if len(mid) >= limit:
                break
            if w is not None and not _overlaps(m["timestamp"], m["timestamp"], w):
                continue
            if m["message_id"] in seen:
                continue
            seen.add(m["message_id"])
            mid.append(
                Item(
                    m["message_id"],
                    "message",
                    m["content"],
                    round(msg_rel(m), 4),
                    f"message close to the query ({msg_rel(m):.2f})",
                    timestamp=m["timestamp"],
                    source_message_ids=[m["message_id"]],
                )
            )
    long_term = [
        Item(
            s["summary_id"],
            "summary",
            s["content"],
            round(sc, 4),
            f"lasting {s['kind']} memory",
            topic=s["topic"],
            confidence=s["confidence"],
            timestamp=s["event_end"],
            source_fact_ids=list(s["source_facts"]),
        )
        for sc, _rel, s in rank_summaries(c, now, None)
        if s["kind"] in LONG_TERM_KINDS and s["summary_id"] not in seen
    ][:3]
    short = [
        Item(
            m["message_id"],
            "message",
            m["content"],
            1.0,
            "recent in this session",
            timestamp=m["timestamp"],
            source_message_ids=[m["message_id"]],
        )
        for m in reversed(c["recent"])
    ]
    formatted = format_context(query, short, mid, long_term, facts)
    return Recall(query, short, mid, long_term, formatted, w)


_HEAD = {
    "zh": ("长期用户记忆", "与当前问题相关的记忆", "近期对话", "依据"),
    "en": (
        "Long-term user memory",
        "Memory relevant to this query",
        "Recent conversation",
        "evidence",
    ),
}


def format_context(
    query: str,
    short: list[Item],
    mid: list[Item],
    long_term: list[Item],
    facts: dict[str, dict[str, Any]],
) -> str:
    """One prompt-ready block in the query's language; every line carries its ids."""
    lang = detect_lang(query)
    h_long, h_mid, h_short, h_src = _HEAD[lang]
    lines: list[str] = []
    if long_term:
        lines.append(f"## {h_long}")
        lines += [f"- [{it.id}] {it.content}" for it in long_term]
    if mid:
        lines.append(f"## {h_mid}")
        placed: set[str] = set()

        def fact_line(it: Item, indent: str) -> str:
            return f"{indent}- [{it.id}] {it.content} ({h_src}: {', '.join(it.source_message_ids)})"

        for it in mid:
            if it.kind == "summary":
                lines.append(
                    f"- [{it.id}] ({it.topic}, confidence {it.confidence:.2f}) {it.content}"
                )
                for f in mid:
                    if f.kind == "fact" and f.id in it.source_fact_ids and f.id not in placed:
                        placed.add(f.id)
                        lines.append(fact_line(f, "  "))
        for it in mid:
            if it.kind == "fact" and it.id not in placed:
                lines.append(fact_line(it, ""))
            elif it.kind == "message":
                lines.append(f"- [{it.id}] {it.content}")
    if short:
        lines.append(f"## {h_short}")
        lines += [f"- [{it.id}] {it.content}" for it in short]
    return "\n".join(lines)
