"""Stored records decoded once where they leave Neo4j (graph/records.py), and the MCP
resources' JSON made back from them (doors/mcp_views.py) as the stored properties read."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from api.types import Fact, Message, Summary
from core.inputs import MessageIn
from doors.mcp_views import fact_json, message_json, summary_json
from extract.types import EntityRef
from graph.ingest import _row
from graph.records import stored_fact, stored_message, stored_summary, stored_topic

T = datetime(2026, 11, 30, 10, tzinfo=UTC)
META = {"target": "reviews", "attributes": ["脚感柔软", "日常训练"], "seconds": 45}


def message_row() -> dict[str, Any]:
    """A Message's properties as graph.ingest stores them and messages_by_ids reads them."""
    m = MessageIn("e7", "u1", "s1", "event", "停留", T, "dwell", "reviews", META)
    stored = _row("t", m, "zh")
    keys = ("message_id", "user_id", "session_id", "role", "content", "event_type", "page")
    row: dict[str, Any] = {k: stored[k] for k in keys}
    return row | {
        "timestamp": T,
        "metadata_json": stored["metadata_json"],
        "lang": "zh",
        "status": "processed",
        "ingested_at": T,
    }


def test_a_message_is_decoded_once_and_shown_as_stored() -> None:
    row = message_row()
    m = stored_message(row)
    assert m.metadata == META and m.timestamp == T and m.status == "processed"
    assert message_json(m) == row  # the MCP resource: same properties, same JSON text
    shown = Message.from_record(m)
    metadata: object = shown.metadata
    assert metadata == META and shown.event_type == "dwell" and shown.lang == "zh"


def test_missing_properties_get_the_documented_defaults() -> None:
    row = message_row() | {"event_type": None, "status": None, "metadata_json": None}
    m = stored_message(row)
    assert (m.event_type, m.status, m.metadata) == ("message", "pending", {})
    f = stored_fact(
        {
            "fact_id": "f_1",
            "user_id": "u1",
            "content": "The user likes reviews",
            "kind": "preference",
            "validity": "active",
            "labels": None,
            "confidence": None,
        },
        [],
    )
    assert (f.polarity, f.explicit, f.confidence, f.status) == ("neutral", False, 0.0, "pending")
    assert f.labels == () and f.sources == () and f.time_start is None
    assert (f.subject, f.subject_kind, f.subject_id) == (None, "user", None)  # the user's own


def test_a_fact_carries_its_sources_as_messages() -> None:
    src = message_row()
    del src["ingested_at"]  # facts_by_ids reads sources without it
    row = {
        "fact_id": "f_1",
        "user_id": "u1",
        "content": "The user reads reviews about daily training",
        "kind": "preference",
        "slot": None,
        "value": None,
        "polarity": "likes",
        "explicit": False,
        "confidence": 0.6,
        "validity": "active",
        "status": "processed",
        "labels": ["behaviour"],
        "entities": ["reviews"],
        "source_message_ids": ["e7"],
        "lang": "zh",
        "topic": "running shoes",
        "anchors": [],
        "subject": "室友小陈",
        "subject_kind": "person",
        "subject_id": "w_1",
        "time_start": T,
        "time_end": T,
        "created_at": T,
    }
    f = stored_fact(row, [src])
    assert (f.subject, f.subject_kind, f.subject_id) == ("室友小陈", "person", "w_1")
    assert [s.message_id for s in f.sources] == ["e7"] and f.sources[0].metadata == META
    assert f.entity_names == ("reviews",) and f.labels == ("behaviour",)
    assert fact_json(f) == row | {"sources": [src]}
    shown = Fact.from_record(f)
    assert shown.entity_names == ["reviews"] and shown.sources == list(f.sources)


def test_a_summary_parses_its_evidence_and_entities() -> None:
    evidence = {"message_ids": ["e7"], "kinds": {"preference": 1}}
    row = {
        "summary_id": "s_1",
        "user_id": "u1",
        "content": "Prefers cushioned shoes",
        "topic": "running shoes",
        "kind": "shopping_intent",
        "source_facts": ["f_1"],
        "confidence": 0.7,
        "event_start": T,
        "event_end": T,
        "labels": ["shopping"],
        "decay_factor": 0.05,
        "validity": "active",
        "memory_status": "active",
        "retrieval_boost": 1.0,
        "evidence_json": json.dumps(evidence, ensure_ascii=False, sort_keys=True),
        "anchors": [],
        "created_at": T,
        "updated_at": T,
        "version": 2,
        "lang": "en",
        "entities": [{"name": "42", "type": "SIZE", "normalized": "42"}],
        "supersedes": ["s_0"],
        "superseded_by": [],
    }
    s = stored_summary(row)
    assert s.evidence == evidence and s.entities == (EntityRef("42", "SIZE", "42"),)
    assert s.source_fact_ids == ("f_1",) and s.supersedes == ("s_0",)
    assert summary_json(s) == row
    shown = Summary.from_record(s)
    shown_evidence: object = shown.evidence
    assert shown_evidence == evidence and shown.supersedes_ids == ["s_0"]
    assert [(e.name, e.type) for e in shown.entities] == [("42", "SIZE")]


def test_a_topic_without_counts_counts_zero() -> None:
    t = stored_topic({"topic_id": "t1", "name": "travel", "summary_count": None})
    assert (t.summary_count, t.fact_count) == (0, 0)
