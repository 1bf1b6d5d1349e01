"""GraphQL types for audit: traces, deletion previews and reports, the audit log."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from api.mapping import mapped
from core.records import AuditEntry, Provenance
from core.wire import ImpactFields
from service.erasure import Impact


@strawberry.type
class TraceNode:
    id: strawberry.ID
    label: str
    properties: JSON


@strawberry.type
class TraceEdge:
    source: strawberry.ID
    type: str
    target: strawberry.ID


@strawberry.type
class Trace:
    root_id: strawberry.ID
    root_kind: str
    nodes: list[TraceNode]
    edges: list[TraceEdge]
    cypher: str = strawberry.field(description="Paste into Neo4j Browser (sets $id first).")
    params: JSON
    truncated: bool = strawberry.field(
        description="True when a part of the provenance had more paths than "
        "GUMEM_TRACE_MAX_PATHS; those past it are left out."
    )

    @staticmethod
    def from_data(t: Provenance) -> Trace:
        nodes = [mapped(TraceNode, n, properties=_iso_times(n.properties)) for n in t.nodes]
        edges = [mapped(TraceEdge, e) for e in t.edges]
        return mapped(Trace, t, nodes=nodes, edges=edges)


def _iso_times(properties: Mapping[str, object]) -> dict[str, object]:
    return {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in properties.items()}


@strawberry.type
class DeletionImpact(ImpactFields):
    message_id: strawberry.ID

    @staticmethod
    def from_impact(i: Impact) -> DeletionImpact:
        # the Impact's own lists first (its orphan_topics are names), then its plan's
        return mapped(DeletionImpact, i, i.plan, new_summaries=[s.draft.content for s in i.rebuilt])


@strawberry.type
class DeletionReport:
    impact: DeletionImpact
    counts: JSON


@strawberry.type
class ForgetReport:
    user_id: str
    counts: JSON
    remaining: int


@strawberry.type
class AuditRecord:
    id: strawberry.ID
    action: str
    target: str
    ids: list[str]
    counts: JSON
    at: datetime

    @staticmethod
    def from_entry(e: AuditEntry) -> AuditRecord:
        return mapped(AuditRecord, e, id=e.audit_id)
