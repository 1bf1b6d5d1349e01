"""Writing Messages: one transaction per batch, re-sent ids are no-ops."""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from core.inputs import MessageIn
from extract.types import author_name
from graph.db import Database, tx_rows
from graph.queries import query


def message_uid(tenant: str, message_id: str) -> str:
    return f"{tenant}|{message_id}"


def user_uid(tenant: str, user_id: str) -> str:
    return f"{tenant}|{user_id}"


def scope_token(tenant: str, user_id: str) -> str:
    """One Lucene token per (tenant, user): full-text searches filter on it."""
    return "u" + hashlib.sha256(f"{tenant}\x1f{user_id}".encode()).hexdigest()[:24]


@dataclass(frozen=True)
class IngestResult:
    accepted: list[str]
    duplicates: list[str]


def _row(tenant: str, m: MessageIn, lang: str) -> dict[str, Any]:
    return {
        "uid": message_uid(tenant, m.message_id),
        "user_uid": user_uid(tenant, m.user_id),
        "session_uid": f"{tenant}|{m.user_id}|{m.session_id}",
        "message_id": m.message_id,
        "user_id": m.user_id,
        "session_id": m.session_id,
        "role": m.role,
        "content": m.content,
        "author": author_name(m.metadata),
        "timestamp": m.timestamp.isoformat(),  # parsed by Neo4j: cheaper than the driver
        "event_type": m.event_type,
        "page": m.page,
        "metadata_json": json.dumps(m.metadata, ensure_ascii=False, sort_keys=True),
        "lang": lang,
        "scope": scope_token(tenant, m.user_id),
    }


async def add_messages(
    db: Database, tenant: str, messages: list[MessageIn], langs: list[str]
) -> IngestResult:
    """Store the batch in one transaction. Same id in the batch twice: the first wins."""
    seen: set[str] = set()
    rows = []
    dup_in_batch: list[str] = []
    for m, lang in zip(messages, langs, strict=True):
        if m.message_id in seen:
            dup_in_batch.append(m.message_id)
            continue
        seen.add(m.message_id)
        rows.append(_row(tenant, m, lang))
    batch = uuid.uuid4().hex

    async def work(tx: AsyncManagedTransaction) -> list[dict[str, Any]]:
        return await tx_rows(
            tx,
            query("add_messages"),
            rows=rows,
            tenant=tenant,
            batch=batch,
            now=datetime.now(UTC),
        )

    out = await db.write(work)
    accepted = [r["message_id"] for r in out if r["created"]]
    dups = [r["message_id"] for r in out if not r["created"]] + dup_in_batch
    return IngestResult(accepted=accepted, duplicates=dups)
