"""The JSON the MCP server answers with: its resources show stored records with the stored
properties' names (`message_id`, `metadata_json` ...), as they always have; its tools'
answers (a recall, a deletion's impact) use GraphQL's names (`formattedContext` ...)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, fields
from datetime import datetime
from typing import Any

from strawberry.utils.str_converters import to_camel_case

from api.audit_types import DeletionImpact
from api.mapping import shown
from api.types import Topic
from core.records import Provenance
from service import erasure
from service.recall import Item, Recall
from service.records import StoredFact, StoredMessage, StoredSummary, StoredTopic


def _encoded(value: dict[str, object]) -> str:
    """A JSON property as stored (graph.ingest and graph.topic_summary_writes encode it so)."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _stored(record: Any, renamed: Mapping[str, str], **given: object) -> dict[str, object]:
    """A record as its node's stored properties: each field under its own name or the one
    `renamed` gives, tuples as lists; `given` shows a field otherwise."""
    out: dict[str, object] = {}
    for f in fields(record):
        value = given[f.name] if f.name in given else getattr(record, f.name)
        out[renamed.get(f.name, f.name)] = shown(value)
    return out


def _graphql(value: Any) -> dict[str, object]:
    """A GraphQL type's fields (not its resolvers) under their GraphQL names."""
    return {to_camel_case(f.name): getattr(value, f.name) for f in fields(value) if f.init}


def message_json(m: StoredMessage, with_ingested: bool = True) -> dict[str, object]:
    out = _stored(m, {"metadata": "metadata_json"}, metadata=_encoded(m.metadata))
    if not with_ingested:
        del out["ingested_at"]
    return out


def fact_json(f: StoredFact) -> dict[str, object]:
    sources = [message_json(m, with_ingested=False) for m in f.sources]
    return _stored(f, {"entity_names": "entities"}, sources=sources)


def summary_json(s: StoredSummary) -> dict[str, object]:
    renamed = {"source_fact_ids": "source_facts", "evidence": "evidence_json"}
    entities = [asdict(e) for e in s.entities]
    return _stored(s, renamed, evidence=_encoded(s.evidence), entities=entities)


def topic_json(t: StoredTopic) -> dict[str, object]:
    return _graphql(Topic.from_record(t))


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


# what a recall item shows of an Item, in this order (under GraphQL's names); `part` is the
# part of the context it stands in
ITEM_SHOWN = (
    "id",
    "kind",
    "part",
    "content",
    "score",
    "reason",
    "topic",
    "confidence",
    "timestamp",
    "author",
    "superseded",
    "source_fact_ids",
    "source_message_ids",
)


def item_json(it: Item, part: str) -> dict[str, Any]:
    timestamp = it.timestamp.isoformat() if it.timestamp else None
    given = {"part": part, "score": round(it.score, 4), "timestamp": timestamp}
    return {to_camel_case(k): given[k] if k in given else getattr(it, k) for k in ITEM_SHOWN}


def impact_json(i: erasure.Impact) -> dict[str, Any]:
    return _graphql(DeletionImpact.from_impact(i))


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
