"""Provenance both ways (Summary → Facts → Messages, Message → Facts → Summaries)."""

from __future__ import annotations

from neo4j.graph import Node, Path

from core.records import Provenance, ProvenanceEdge, ProvenanceNode
from graph.db import Database, native
from graph.ingest import message_uid
from graph.queries import query, shown_query

_KEYS = {
    "Summary": "summary_id",
    "Fact": "fact_id",
    "Message": "message_id",
    "Topic": "topic_id",
    "Session": "session_id",
}
_SHOWN = (
    "content",
    "topic",
    "validity",
    "memory_status",
    "kind",
    "explicit",
    "role",
    "event_type",
    "timestamp",
    "name",
    "confidence",
    "version",
    "status",
)

# Ready to paste into Neo4j Browser after `:param id => "<id>"` (cypher/browser_*.cypher).
BROWSER = {"Summary": "browser_summary", "Fact": "browser_fact", "Message": "browser_message"}


def browser_cypher(kind: str) -> str:
    """The Cypher that shows a Summary's, Fact's or Message's provenance in Neo4j Browser."""
    return shown_query(BROWSER[kind])


def _node(n: Node) -> ProvenanceNode:
    label = next((lb for lb in n.labels if lb in _KEYS), "Node")
    props = dict(n)
    return ProvenanceNode(
        id=str(props.get(_KEYS.get(label, ""), n.element_id)),
        label=label,
        properties={k: native(props[k]) for k in _SHOWN if k in props},
    )


def kind_of(node_id: str) -> str:
    if node_id.startswith("s_"):
        return "Summary"
    if node_id.startswith("f_"):
        return "Fact"
    return "Message"


async def trace(db: Database, tenant: str, node_id: str, max_paths: int) -> Provenance | None:
    """At most `max_paths` paths per part (sources, versions, summaries...); `truncated`
    says when a part had more."""
    kind = kind_of(node_id)
    name = {"Summary": "trace_summary", "Fact": "trace_fact", "Message": "trace_message"}[kind]
    rows = await db.records(
        query(name),
        tenant=tenant,
        id=node_id,
        uid=message_uid(tenant, node_id),
        max_paths=max_paths,
    )
    if not rows:
        return None
    nodes: dict[str, ProvenanceNode] = {}
    edges: dict[tuple[str, str, str], ProvenanceEdge] = {}
    root = rows[0]["root"]
    nodes[root.element_id] = _node(root)
    parts: list[list[Path]] = rows[0]["parts"]
    truncated = any(len(part) > max_paths for part in parts)
    for p in (p for part in parts for p in part[:max_paths]):
        for n in p.nodes:
            nodes[n.element_id] = _node(n)
        for r in p.relationships:
            assert r.start_node is not None and r.end_node is not None
            a, b = nodes[r.start_node.element_id], nodes[r.end_node.element_id]
            edges[(a.id, r.type, b.id)] = ProvenanceEdge(a.id, r.type, b.id)
    return Provenance(
        node_id,
        kind,
        sorted(nodes.values(), key=lambda d: (d.label, d.id)),
        sorted(edges.values(), key=lambda e: (e.type, e.source, e.target)),
        f':param id => "{node_id}"\n{browser_cypher(kind)}',
        {"id": node_id},
        truncated,
    )
