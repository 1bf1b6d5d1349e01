"""The JSON the MCP server answers with: its resources show stored records with the stored
properties' names (`message_id`, `metadata_json` ...), as they always have; its tools'
answers (a recall, a deletion's impact) use GraphQL's names (`formattedContext` ...)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from core.records import Provenance
from service import erasure
from service.recall import Item, Recall
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


def plain(value: Any) -> Any:
    """JSON-ready: datetimes as ISO strings."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=iso))


def iso(value: Any) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def item_json(it: Item, part: str) -> dict[str, Any]:
    return {
        "id": it.id,
        "kind": it.kind,
        "part": part,
        "content": it.content,
        "score": round(it.score, 4),
        "reason": it.reason,
        "topic": it.topic,
        "confidence": it.confidence,
        "timestamp": it.timestamp.isoformat() if it.timestamp else None,
        "author": it.author,
        "superseded": it.superseded,
        "sourceFactIds": it.source_fact_ids,
        "sourceMessageIds": it.source_message_ids,
    }


def impact_json(i: erasure.Impact) -> dict[str, Any]:
    p = i.plan
    return {
        "messageId": p.message_id,
        "removedFacts": p.removed_facts,
        "keptFacts": p.kept_facts,
        "restoredFacts": p.restored_facts,
        "rebuiltSummaries": i.rebuilt_summaries,
        "retiredSummaries": i.retired_summaries,
        "purgedVersions": i.purged_versions,
        "newSummaries": [s.draft.content for s in i.rebuilt],
        "orphanEntities": p.orphan_entities,
        "orphanTopics": i.orphan_topics,
    }


def recall_json(r: Recall) -> dict[str, Any]:
    items = [
        *(item_json(i, "short_term") for i in r.short_term),
        *(item_json(i, "mid_term") for i in r.mid_term),
        *(item_json(i, "long_term") for i in r.long_term),
    ]
    return {
        "query": r.query,
        "formattedContext": r.formatted,
        "ids": [i["id"] for i in items],
        "items": items,
        "timeWindowStart": r.window.start.isoformat() if r.window else None,
        "timeWindowEnd": r.window.end.isoformat() if r.window else None,
    }
