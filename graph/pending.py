"""What is due for processing: a user's pending Messages (and the behaviour events around
them), the users with work to do, and whether a user's Facts wait for consolidation."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from core.records import QueueDepth
from extract.chat.question import Turn, with_questions
from extract.types import MessageRecord
from graph.db import Database, instants
from graph.ingest import message_uid, user_uid
from graph.queries import query, user_rows
from graph.records import message_record


def _message(row: dict[str, Any]) -> MessageRecord:
    return message_record(instants(row))


async def pending_messages(
    db: Database, tenant: str, user_id: str, limit: int = 5000, now: datetime | None = None
) -> list[MessageRecord]:
    """A user's pending Messages due at `now` (a retry waits for its next attempt time);
    a user turn with the assistant turn just before it in its session (`asked`)."""
    rows = await user_rows(
        db, "pending_messages", tenant, user_id, now=now or datetime.now(UTC), limit=limit
    )
    if not rows:
        return []
    row = instants(rows[0])
    msgs = [message_record(m) for m in row["messages"]]
    turns = [
        Turn(t["message_id"], t["session_id"], t["role"], t["timestamp"], t.get("content"))
        for t in row["turns"]
    ]
    return with_questions(msgs, turns)


async def event_window(
    db: Database,
    tenant: str,
    user_id: str,
    since: datetime,
    until: datetime,
    limit: int,
    batch: list[str],
) -> list[MessageRecord]:
    """The user's behaviour events in [since, until]: the latest `limit` of them, and the
    ones of the `batch` (ids) whatever their number. Oldest first."""
    rows = await user_rows(
        db,
        "event_window",
        tenant,
        user_id,
        since=since,
        until=until,
        limit=limit,
        uids=[message_uid(tenant, i) for i in batch],
    )
    return [_message(r["m"]) for r in rows]


async def consolidation_due(db: Database, tenant: str, user_id: str) -> bool:
    rows = await db.rows(query("consolidation_due"), user_uid=user_uid(tenant, user_id))
    return bool(rows and rows[0]["due"])


async def pending_users(
    db: Database, limit: int = 100, now: datetime | None = None, owner: str | None = None
) -> list[tuple[str, str]]:
    """Users with Messages due at `now` or with facts to consolidate, oldest first; with
    `owner`, only those no other owner holds a live lease on."""
    rows = await db.rows(
        query("pending_users"), now=now or datetime.now(UTC), limit=limit, owner=owner
    )
    return [(r["tenant"], r["user_id"]) for r in rows]


async def queue_depth(db: Database, cap: int = 100_000) -> QueueDepth:
    """The pending Messages of all tenants (counted up to `cap`) and the oldest's age."""
    rows = await db.rows(query("queue_depth"), cap=cap)
    return QueueDepth(int(rows[0]["pending"]), rows[0]["oldest_s"])
