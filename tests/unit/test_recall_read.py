"""Recall's one read: the candidate Facts in full and the corrections come with the candidates."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from graph.queries import query
from graph.recall import decode
from service.recall import Weights, assemble, plan

T = datetime(2026, 5, 1, 12, tzinfo=UTC)
STAMP = [int(T.timestamp()), 0, 0]  # graph.db.instant's [epochSeconds, microsecond, offset]


def source(mid: str) -> dict[str, Any]:
    return {
        "message_id": mid,
        "user_id": "u1",
        "session_id": "s1",
        "content": f"message {mid}",
        "event_type": "message",
        "role": "user",
        "page": None,
        "metadata_json": "{}",
        "lang": "en",
        "status": "processed",
        "timestamp": STAMP,
    }


def fact_row(fid: str) -> dict[str, Any]:
    fact = {
        "fact_id": fid,
        "user_id": "u1",
        "content": f"fact {fid}",
        "kind": "preference",
        "validity": "active",
        "time_start": STAMP,
        "time_end": STAMP,
        "created_at": STAMP,
    }
    return {"fact": fact, "sources": [source(f"m-{fid}")]}


def row(**kw: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "summaries": [],
        "summary_hits": [],
        "fact_hits": [],
        "fact_near": [],
        "messages": [],
        "message_hits": [],
        "recent": [],
        "facts": [],
        "corrected": [],
    }
    return base | kw


def test_candidate_facts_decode_on_demand_with_their_sources() -> None:
    c = decode(row(facts=[fact_row("a"), fact_row("b")]))
    got = c.facts(["b", "zz"])  # an id that is no candidate is left out
    assert list(got) == ["b"]
    b = got["b"]
    assert b.content == "fact b" and b.time_start == T
    assert [m.message_id for m in b.sources] == ["m-b"] and b.sources[0].timestamp == T


def test_corrections_come_with_the_candidates_and_mark_the_recent_turns() -> None:
    recent = {
        "message_id": "m1",
        "content": "My budget is 2000",
        "event_type": "message",
        "role": "user",
        "session_id": "s1",
        "metadata_json": "{}",
        "timestamp": STAMP,
    }
    c = decode(
        row(
            recent=[recent],
            corrected=[
                {"message_id": "m1", "replaced_by": [{"fact_id": "f9", "content": "budget 2500"}]}
            ],
        )
    )
    assert c.corrected == {"m1": (("f9", "budget 2500"),)}
    r = assemble(plan(c, None, 8, Weights()), c, {}, "budget?", Weights(), user_id="u1")
    assert "- [m1] user: My budget is 2000 (superseded by f9: budget 2500)" in r.formatted


def _fields(block: str) -> set[str]:
    return set(re.findall(r"\.(\w+)", block)) | set(re.findall(r"(\w+):\s*\[", block))


def test_recall_reads_the_fields_facts_by_ids_reads() -> None:
    """recall.cypher repeats facts_by_ids.cypher's projection (Cypher has no includes):
    both must give graph.records.stored_fact the same fields."""
    alone, inline = query("facts_by_ids"), query("recall")
    f_alone = alone[alone.index("RETURN f {") : alone.index("} AS fact")]
    f_inline = inline[inline.index("{fact: f {") : inline.index("}, sources: sources}")]
    assert _fields(f_alone) == _fields(f_inline)
    m_alone = alone[alone.index("collect(m {") : alone.index("}) AS sources")]
    m_inline = inline[inline.index("RETURN collect(m {.message_id, .user_id") :]
    m_inline = m_inline[: m_inline.index("}) AS sources")]
    assert _fields(m_alone) == _fields(m_inline)
