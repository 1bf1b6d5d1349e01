"""Deletion: preview, exact delete of one Message, forgetting a user, the audit log."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, LiteralString, cast

from neo4j import AsyncManagedTransaction

from core.errors import ConflictError, InputError, NotFoundError
from core.inputs import Page
from core.records import AuditEntry
from extract.types import FactRecord
from graph.db import Database, native, tx_rows
from graph.ingest import message_uid, scope_token, user_uid
from graph.nodes import LABELS, SCHEMA_LABELS
from graph.queries import query, user_rows
from graph.records import AffectedSummary, TopicUsage
from graph.topic_summary_writes import NewSummary, summary_row

FORGET_PASSES = 3  # sweeps of forget_user until nothing of the user is left


@dataclass(frozen=True)
class Revision:
    """A kept Fact as it will be without the deleted Message: everything it stores that
    came from its sources, re-derived from the remaining ones."""

    fact_id: str
    source_message_ids: tuple[str, ...]
    session_ids: tuple[str, ...]
    event_types: tuple[str, ...]
    anchors: tuple[str, ...]
    time_start: datetime
    time_end: datetime
    provenance: tuple[str, ...]
    sessions_before: tuple[str, ...]  # its own, as stored before
    # None for a Fact stored without provenance: its entities are kept as they are
    entity_ids: tuple[str, ...] | None
    entity_names: tuple[str, ...] | None
    entity_keys: tuple[tuple[str, str], ...] | None  # (type, normalized)
    dropped_entities: tuple[str, ...]

    def apply(self, rec: FactRecord) -> FactRecord:
        inherited = tuple(  # sessions a correction counts from the facts it supersedes
            s for s in rec.session_ids if s not in self.sessions_before + self.session_ids
        )
        keys = self.entity_keys
        return replace(
            rec,
            source_message_ids=self.source_message_ids,
            session_ids=self.session_ids + inherited,
            entities=rec.entities
            if keys is None
            else tuple(e for e in rec.entities if (e.type, e.normalized) in keys),
            event_types=self.event_types,
            anchors=self.anchors,
            time_start=self.time_start,
            time_end=self.time_end,
        )

    def row(self) -> dict[str, Any]:
        return {
            "fact_id": self.fact_id,
            "source_message_ids": list(self.source_message_ids),
            "session_ids": list(self.session_ids),
            "event_types": list(self.event_types),
            "anchors": list(self.anchors),
            "time_start": self.time_start,
            "time_end": self.time_end,
            "provenance": list(self.provenance),
            "entity_ids": None if self.entity_ids is None else list(self.entity_ids),
            "entity_names": None if self.entity_names is None else list(self.entity_names),
        }


def revise(kept: dict[str, Any]) -> Revision:
    """Re-derive a kept Fact from its remaining sources (`kept["sources"]`, the deleted
    Message left out). Its contributions (provenance) that involve a missing source go
    whole: their anchors and times may come from the deleted Message. Without any left,
    the time range is the remaining sources' timestamps."""
    sources = {s["message_id"]: s for s in kept["sources"]}
    listed = [i for i in kept["source_message_ids"] or () if i in sources]
    ids = tuple(dict.fromkeys(listed + sorted(sources)))
    parts = [(raw, json.loads(raw)) for raw in kept["provenance"] or ()]
    left = [p for _, p in parts if set(p["sources"]) <= sources.keys()]
    if left:
        start = min(datetime.fromisoformat(p["time_start"]) for p in left)
        end = max(datetime.fromisoformat(p["time_end"]) for p in left)
    else:
        start = min(sources[i]["timestamp"] for i in ids)
        end = max(sources[i]["timestamp"] for i in ids)
    mentions = kept["mentions"] or []
    known: set[str] | None = None
    if parts:
        known = {e for p in left for e in p.get("entities", ())}
        mentions_left = [e for e in mentions if e["entity_id"] in known]
    else:
        mentions_left = mentions
    return Revision(
        fact_id=kept["fact_id"],
        source_message_ids=ids,
        session_ids=tuple(dict.fromkeys(sources[i]["session_id"] for i in ids)),
        event_types=tuple(sources[i]["event_type"] or "message" for i in ids),
        anchors=tuple(dict.fromkeys(a for p in left for a in p["anchors"])),
        time_start=start,
        time_end=end,
        provenance=tuple(raw for raw, p in parts if set(p["sources"]) <= sources.keys()),
        sessions_before=tuple(kept["session_ids"] or ()),
        entity_ids=None if known is None else tuple(e["entity_id"] for e in mentions_left),
        entity_names=None if known is None else tuple(e["name"] for e in mentions_left),
        entity_keys=None
        if known is None
        else tuple((e["type"], e["normalized"]) for e in mentions_left),
        dropped_entities=tuple(e["entity_id"] for e in mentions if e not in mentions_left),
    )


@dataclass
class DeletionPlan:
    message_id: str
    user_id: str
    removed_facts: list[str]
    kept_facts: list[str]
    summaries: list[AffectedSummary]  # every version supported by a removed fact
    restored_facts: list[str]
    orphan_entities: list[str]
    revisions: dict[str, Revision] = field(default_factory=dict)  # by kept fact id
    orphan_topics: list[str] = field(default_factory=list)
    rebuilt_topics: list[str] = field(default_factory=list)
    retired_topics: list[str] = field(default_factory=list)

    def key(self) -> tuple[Any, ...]:
        return (
            sorted(self.removed_facts),
            sorted(self.kept_facts),
            sorted(s.summary_id for s in self.summaries),
            sorted(self.restored_facts),
            sorted(self.orphan_entities),
            sorted(self.revisions.items()),
        )

    def revise(self, rec: FactRecord) -> FactRecord:
        """`rec` as it will be after the deletion."""
        r = self.revisions.get(rec.fact_id)
        return r.apply(rec) if r else rec


async def _plan(tx: AsyncManagedTransaction, tenant: str, message_id: str) -> DeletionPlan:
    rows = await tx_rows(
        tx,
        query("deletion_plan"),
        tenant=tenant,
        uid=message_uid(tenant, message_id),
        quoted=json.dumps(message_id, ensure_ascii=False),
    )
    if not rows:
        raise NotFoundError(f"no message {message_id!r}")
    r = native(rows[0])
    return DeletionPlan(
        message_id=r["message_id"],
        user_id=r["user_id"],
        removed_facts=r["removed_facts"],
        kept_facts=r["kept_facts"],
        summaries=[
            AffectedSummary(s["summary_id"], s["validity"], s["topic"]) for s in r["summaries"]
        ],
        restored_facts=r["restored"],
        orphan_entities=r["orphan_entities"],
        revisions={k["fact_id"]: revise(k) for k in r["kept_rows"]},
    )


async def plan_deletion(db: Database, tenant: str, message_id: str) -> DeletionPlan:
    async def work(tx: AsyncManagedTransaction) -> DeletionPlan:
        return await _plan(tx, tenant, message_id)

    return await db.read(work)


async def topic_usage(
    db: Database,
    tenant: str,
    user_id: str,
    topics: list[str],
    removed: list[str],
    purged: list[str],
) -> list[TopicUsage]:
    rows = await user_rows(
        db, "topic_usage", tenant, user_id, topics=topics, removed=removed, purged=purged
    )
    return [TopicUsage(r["topic_id"], r["name"], r["facts"], r["summaries"]) for r in rows]


async def delete_message(
    db: Database,
    tenant: str,
    plan: DeletionPlan,
    rebuilt: list[NewSummary],
    orphan_topic_ids: list[str],
) -> dict[str, int]:
    """Delete exactly what `plan` says, or nothing (ConflictError) if the graph moved."""
    now = datetime.now(UTC)
    rows = [summary_row(tenant, plan.user_id, s) for s in rebuilt]

    async def work(tx: AsyncManagedTransaction) -> dict[str, int]:
        await _bump(tx, tenant, plan.user_id)  # first: in-flight processing writes nothing
        again = await _plan(tx, tenant, plan.message_id)
        if again.key() != plan.key():
            raise ConflictError("memory changed while deleting; nothing was deleted, retry")
        out = await tx_rows(
            tx,
            query("delete_message"),
            tenant=tenant,
            uid=message_uid(tenant, plan.message_id),
            kept=plan.kept_facts,
            removed=plan.removed_facts,
            purged=[s.summary_id for s in plan.summaries],
            restored=plan.restored_facts,
            entities=plan.orphan_entities,
            revised=[r.row() for r in plan.revisions.values()],
            dropped=sorted({e for r in plan.revisions.values() for e in r.dropped_entities}),
        )
        user = {
            "tenant": tenant,
            "user_id": plan.user_id,
            "scope": scope_token(tenant, plan.user_id),
        }
        if rows:
            await tx_rows(
                tx, query("write_summaries"), users=[{**user, "summaries": rows}], now=now
            )
        topics = 0
        if orphan_topic_ids:
            t = await tx_rows(tx, query("delete_topics"), tenant=tenant, ids=orphan_topic_ids)
            topics = t[0]["topics"]
        await tx_rows(tx, query("topic_counts"), users=[{**user, "topics": None}], now=now)
        counts = {
            "messages": 1,
            "facts": out[0]["facts"],
            "summaries": out[0]["summaries"],
            "restored_facts": out[0]["restored"],
            "entities": out[0]["entities"],
            "topics": topics,
            "rebuilt_summaries": len(rows),
            "kept_facts": len(plan.kept_facts),
        }
        await _audit(
            tx,
            tenant,
            "delete_message",
            plan.message_id,
            plan.removed_facts + [s.summary_id for s in plan.summaries],
            counts,
            now,
        )
        return counts

    return await db.write(work)


async def _bump(tx: AsyncManagedTransaction, tenant: str, user_id: str) -> None:
    """Change the user's fencing token (graph.fencing.user_token): a processing run that
    read the user's Messages before this transaction can no longer write."""
    await tx_rows(tx, query("bump_generation"), user_uid=user_uid(tenant, user_id))


async def _audit(
    tx: AsyncManagedTransaction,
    tenant: str,
    action: str,
    target: str,
    ids: list[str],
    counts: dict[str, int],
    now: datetime,
) -> None:
    await tx_rows(
        tx,
        query("write_audit"),
        audit_id=uuid.uuid4().hex,
        tenant=tenant,
        action=action,
        target=target,
        ids=ids,
        now=now,
        counts_json=json.dumps(counts, sort_keys=True),
    )


async def forget_user(db: Database, tenant: str, user_id: str, batch: int = 5000) -> dict[str, int]:
    """Erase every node of the user, label by label in batches; verify none remain.

    The first transaction changes the user's fencing token, so a processing run that read
    the user's Messages before writes nothing after it; what such a run wrote before is
    swept by the batches (the User node goes last). Sweeps repeat while anything is left."""

    async def fence(tx: AsyncManagedTransaction) -> None:
        await _bump(tx, tenant, user_id)

    await db.write(fence)
    counts = dict.fromkeys(LABELS, 0)
    remaining = -1
    for _ in range(FORGET_PASSES):
        for label in LABELS:
            counts[label] += await _forget_label(db, tenant, user_id, label, batch)
        rows = await db.rows(query("user_node_count"), tenant=tenant, user_id=user_id)
        remaining = int(rows[0]["remaining"])
        if remaining == 0:
            break
    counts["remaining"] = remaining

    async def audit(tx: AsyncManagedTransaction) -> None:
        await _audit(tx, tenant, "forget_user", user_id, [], counts, datetime.now(UTC))

    await db.write(audit)
    return counts


def label_query(name: str, label: str) -> LiteralString:
    """cypher/<name>.cypher with its `{label}` filled in (a label cannot be a $param): only
    with one of the schema's labels (SCHEMA_LABELS), checked before the text is read."""
    if label not in SCHEMA_LABELS:
        raise InputError("label", "not one of the schema's labels")
    return cast(LiteralString, query(name).replace("{label}", label))


async def _forget_label(db: Database, tenant: str, user_id: str, label: str, batch: int) -> int:
    text = label_query("forget_user_batch", label)

    async def work(tx: AsyncManagedTransaction) -> int:
        rows = await tx_rows(tx, text, tenant=tenant, user_id=user_id, batch=batch)
        return int(rows[0]["deleted"])

    total = 0
    while True:
        n = await db.write(work)
        total += n
        if n < batch:
            return total


async def audit_log(db: Database, tenant: str, page: Page) -> list[AuditEntry]:
    """The tenant's audit log, newest first; the counts decoded here, where they leave Neo4j."""
    rows = await db.rows(query("list_audit"), tenant=tenant, limit=page.limit, offset=page.offset)
    out = []
    for r in rows:
        a = native(r["audit"])
        out.append(
            AuditEntry(
                audit_id=a["audit_id"],
                action=a["action"],
                target=a["target"],
                ids=list(a.get("ids") or []),
                counts=json.loads(a.get("counts_json") or "{}"),
                at=a["at"],
            )
        )
    return out
