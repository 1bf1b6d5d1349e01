"""GraphQL types for audit: traces, deletion previews and reports, the audit log."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.scalars import JSON

from core.records import AuditEntry, Provenance
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
        return Trace(
            root_id=strawberry.ID(t.root_id),
            root_kind=t.root_kind,
            nodes=[
                TraceNode(
                    id=strawberry.ID(n.id),
                    label=n.label,
                    properties=JSON(
                        {
                            k: (v.isoformat() if isinstance(v, datetime) else v)
                            for k, v in n.properties.items()
                        }
                    ),
                )
                for n in t.nodes
            ],
            edges=[
                TraceEdge(
                    source=strawberry.ID(e.source),
                    type=e.type,
                    target=strawberry.ID(e.target),
                )
                for e in t.edges
            ],
            cypher=t.cypher,
            params=JSON(t.params),
            truncated=t.truncated,
        )


@strawberry.type
class DeletionImpact:
    message_id: strawberry.ID
    removed_facts: list[str]
    kept_facts: list[str]
    restored_facts: list[str]
    rebuilt_summaries: list[str]
    retired_summaries: list[str]
    purged_versions: list[str]
    new_summaries: list[str]
    orphan_entities: list[str]
    orphan_topics: list[str]

    @staticmethod
    def from_impact(i: Impact) -> DeletionImpact:
        p = i.plan
        return DeletionImpact(
            message_id=strawberry.ID(p.message_id),
            removed_facts=p.removed_facts,
            kept_facts=p.kept_facts,
            restored_facts=p.restored_facts,
            rebuilt_summaries=i.rebuilt_summaries,
            retired_summaries=i.retired_summaries,
            purged_versions=i.purged_versions,
            new_summaries=[s.draft.content for s in i.rebuilt],
            orphan_entities=p.orphan_entities,
            orphan_topics=i.orphan_topics,
        )


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
        return AuditRecord(
            id=strawberry.ID(e.audit_id),
            action=e.action,
            target=e.target,
            ids=e.ids,
            counts=JSON(e.counts),
            at=e.at,
        )
