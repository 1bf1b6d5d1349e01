"""Deletion: preview, exact delete of one Message, forgetting a user, the audit log."""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, LiteralString, cast

from neo4j import AsyncManagedTransaction

from graph.db import Database, native, tx_rows
from graph.ingest import message_uid, scope_token
from graph.memory import NewSummary, summary_row
from graph.models import LABELS
from graph.queries import query
from gumem.errors import GumemError, NotFoundError


class ConflictError(GumemError):
    code = "CONFLICT"


@dataclass
class Plan:
    message_id: str
    user_id: str
    removed_facts: list[str]
    kept_facts: list[str]
    summaries: list[dict[str, Any]]  # every version supported by a removed fact
    restored_facts: list[str]
    orphan_entities: list[str]
    orphan_topics: list[str] = field(default_factory=list)
    rebuilt_topics: list[str] = field(default_factory=list)
    retired_topics: list[str] = field(default_factory=list)

    def key(self) -> tuple[Any, ...]:
        return (
            sorted(self.removed_facts),
            sorted(self.kept_facts),
            sorted(s["summary_id"] for s in self.summaries),
            sorted(self.restored_facts),
            sorted(self.orphan_entities),
        )


async def _plan(tx: AsyncManagedTransaction, tenant: str, message_id: str) -> Plan:
    rows = await tx_rows(
        tx, query("deletion_plan"), tenant=tenant, uid=message_uid(tenant, message_id)
    )
    if not rows:
        raise NotFoundError(f"no message {message_id!r}")
    r = rows[0]
    return Plan(
        message_id=r["message_id"],
        user_id=r["user_id"],
        removed_facts=r["removed_facts"],
        kept_facts=r["kept_facts"],
        summaries=r["summaries"],
        restored_facts=r["restored"],
        orphan_entities=r["orphan_entities"],
    )


async def plan_deletion(db: Database, tenant: str, message_id: str) -> Plan:
    async def work(tx: AsyncManagedTransaction) -> Plan:
        return await _plan(tx, tenant, message_id)

    return await db.read(work)


async def topic_usage(
    db: Database,
    tenant: str,
    user_id: str,
    topics: list[str],
    removed: list[str],
    purged: list[str],
) -> list[dict[str, Any]]:
    return await db.rows(
        query("topic_usage"),
        tenant=tenant,
        user_id=user_id,
        topics=topics,
        removed=removed,
        purged=purged,
    )


async def delete_message(
    db: Database,
    tenant: str,
    plan: Plan,
    rebuilt: list[NewSummary],
    orphan_topic_ids: list[str],
) -> dict[str, int]:
    """Delete exactly what `plan` says, or nothing (ConflictError) if the graph moved."""
    now = datetime.now(UTC)
    rows = [summary_row(tenant, plan.user_id, s) for s in rebuilt]

    async def work(tx: AsyncManagedTransaction) -> dict[str, int]:
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
            purged=[s["summary_id"] for s in plan.summaries],
            restored=plan.restored_facts,
            entities=plan.orphan_entities,
        )
        if rows:
            await tx_rows(
                tx,
                query("write_summaries"),
                summaries=rows,
                tenant=tenant,
                user_id=plan.user_id,
                now=now,
                scope=scope_token(tenant, plan.user_id),
            )
        topics = 0
        if orphan_topic_ids:
            t = await tx_rows(tx, query("delete_topics"), tenant=tenant, ids=orphan_topic_ids)
            topics = t[0]["topics"]
        await tx_rows(tx, query("topic_counts"), tenant=tenant, user_id=plan.user_id)
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
            plan.removed_facts + [s["summary_id"] for s in plan.summaries],
            counts,
            now,
        )
        return counts

    return await db.write(work)


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
    """Erase every node of the user, label by label in batches; verify none remain."""
    counts: dict[str, int] = {}
    for label in LABELS:
        text = cast(LiteralString, query("forget_user_batch").replace("{label}", label))
        total = 0
        while True:

            async def work(tx: AsyncManagedTransaction, text: LiteralString = text) -> int:
                rows = await tx_rows(tx, text, tenant=tenant, user_id=user_id, batch=batch)
                return int(rows[0]["deleted"])

            n = await db.write(work)
            total += n
            if n < batch:
                break
        counts[label] = total
    remaining = (await db.rows(query("user_node_count"), tenant=tenant, user_id=user_id))[0]
    counts["remaining"] = int(remaining["remaining"])

    async def audit(tx: AsyncManagedTransaction) -> None:
        await _audit(tx, tenant, "forget_user", user_id, [], counts, datetime.now(UTC))

    await db.write(audit)
    return counts


async def audit_log(db: Database, tenant: str, limit: int, offset: int) -> list[dict[str, Any]]:
    rows = await db.rows(query("list_audit"), tenant=tenant, limit=limit, offset=offset)
    return [native(r["audit"]) for r in rows]
