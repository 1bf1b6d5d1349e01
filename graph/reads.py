"""Reads by id, scoped by tenant."""

from __future__ import annotations

from typing import Any

from graph.db import Database, native
from graph.ingest import message_uid
from graph.queries import query


async def message(db: Database, tenant: str, message_id: str) -> dict[str, Any] | None:
    rows = await db.rows(query("message_by_id"), uid=message_uid(tenant, message_id),
                         tenant=tenant)
    return native(rows[0]["message"]) if rows else None
