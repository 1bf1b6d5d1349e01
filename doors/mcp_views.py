"""The JSON the MCP server shows of stored records: its resources keep the stored
properties' names (`message_id`, `metadata_json` ...), as they always have."""

from __future__ import annotations

import json

from core.records import Provenance
from service.records import StoredFact, StoredMessage, StoredSummary, StoredTopic


def _encoded(value: dict[str, object]) -> str:
    """A JSON property as stored (graph.ingest and graph.topic_summary_writes encode it so)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def message_json(m: StoredMessage, with_ingested: bool = True) -> dict[str, object]:
    out: dict[str, object] = {
        "message_id": m.message_id,
        "user_id": m.user_id,
        "session_id": m.session_id,
        "role": m.role,
        "content": m.content,
        "timestamp": m.timestamp,
        "event_type": m.event_type,
        "page": m.page,
        "metadata_json": _encoded(m.metadata),
        "lang": m.lang,
        "status": m.status,
    }
    if with_ingested:
        out["ingested_at"] = m.ingested_at
    return out


def fact_json(f: StoredFact) -> dict[str, object]:
    return {
        "fact_id": f.fact_id,
        "user_id": f.user_id,
        "content": f.content,
        "kind": f.kind,
        "slot": f.slot,
        "value": f.value,
        "polarity": f.polarity,
        "explicit": f.explicit,
        "confidence": f.confidence,
        "validity": f.validity,
        "status": f.status,
        "labels": list(f.labels),
        "entities": list(f.entity_names),
        "source_message_ids": list(f.source_message_ids),
        "lang": f.lang,
        "topic": f.topic,
        "anchors": list(f.anchors),
        "subject": f.subject,
        "subject_kind": f.subject_kind,
        "subject_id": f.subject_id,
        "time_start": f.time_start,
        "time_end": f.time_end,
        "created_at": f.created_at,
        "sources": [message_json(m, with_ingested=False) for m in f.sources],
    }


def summary_json(s: StoredSummary) -> dict[str, object]:
    return {
        "summary_id": s.summary_id,
        "user_id": s.user_id,
        "content": s.content,
        "topic": s.topic,
        "kind": s.kind,
        "source_facts": list(s.source_fact_ids),
        "confidence": s.confidence,
        "event_start": s.event_start,
        "event_end": s.event_end,
        "labels": list(s.labels),
        "decay_factor": s.decay_factor,
        "validity": s.validity,
        "memory_status": s.memory_status,
        "retrieval_boost": s.retrieval_boost,
        "evidence_json": _encoded(s.evidence),
        "anchors": list(s.anchors),
        "created_at": s.created_at,
        "updated_at": s.updated_at,
        "version": s.version,
        "lang": s.lang,
        "entities": [
            {"name": e.name, "type": e.type, "normalized": e.normalized} for e in s.entities
        ],
        "supersedes": list(s.supersedes),
        "superseded_by": list(s.superseded_by),
    }


def topic_json(t: StoredTopic) -> dict[str, object]:
    return {
        "id": t.topic_id,
        "name": t.name,
        "summaryCount": t.summary_count,
        "factCount": t.fact_count,
    }


def trace_json(t: Provenance) -> dict[str, object]:
    """A trace as the `trace` tool answers it (times not yet ISO strings)."""
    return {
        "rootId": t.root_id,
        "rootKind": t.root_kind,
        "nodes": [{"id": n.id, "label": n.label, **n.properties} for n in t.nodes],
        "edges": [{"source": e.source, "type": e.type, "target": e.target} for e in t.edges],
        "cypher": t.cypher,
        "truncated": t.truncated,
    }
