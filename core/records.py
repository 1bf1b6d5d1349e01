"""Records that cross rooms: built in graph/, carried by the service, mapped by api/ and MCP."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class ProvenanceNode:
    """A node on a provenance path: its id, label and the properties worth showing."""

    id: str
    label: str  # Summary / Fact / Message / Topic / Session
    properties: dict[str, object]  # times as datetime


@dataclass(frozen=True)
class ProvenanceEdge:
    source: str
    type: str
    target: str


@dataclass
class Provenance:
    """One id's provenance both ways (graph/trace.py builds it): the nodes and edges of the
    paths through it, and the Cypher that shows the same graph in Neo4j Browser."""

    root_id: str
    root_kind: str
    nodes: list[ProvenanceNode]
    edges: list[ProvenanceEdge]
    cypher: str
    params: dict[str, str]
    truncated: bool = False  # some part had more than `max_paths` paths; the rest are left out


@dataclass(frozen=True)
class AuditEntry:
    """One erasure recorded in the audit log: ids and counts, never content."""

    audit_id: str
    action: str  # delete_message / forget_user
    target: str  # the Message or user id
    ids: list[str]  # the node ids it removed or rebuilt
    counts: dict[str, int]
    at: datetime


@dataclass(frozen=True)
class QueueDepth:
    """The processing queue of all tenants, as /metrics shows it."""

    pending: int  # pending Messages, counted up to a cap
    oldest_s: int | None  # the oldest one's ingest time (epoch seconds); None: none pending
