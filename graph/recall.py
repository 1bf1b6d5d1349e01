"""Recall's reads: one round trip for candidates, one for the chosen facts' sources."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from graph.db import Database, instants
from graph.ingest import message_uid, scope_token
from graph.queries import query

_LUCENE_SPECIAL = re.compile(r'([+\-&|!(){}\[\]^"~*?:\\/])')
RECALLED_STATUSES = ["active", "deprioritized"]


def lucene_query(text: str, scope: str) -> str | None:
    """A full-text query for `text` restricted to one user's scope token.

    The text is searched in the content, a Summary's topic and a Message's author. Every
    Lucene operator character is escaped and the text is lower-cased (so AND / OR /
    NOT are words, not operators); None when nothing searchable is left.
    """
    cleaned = _LUCENE_SPECIAL.sub(r"\\\1", text.lower()).strip()
    if not re.search(r"\w", cleaned):
        return None
    return f"+scope:{scope} +(content:({cleaned}) OR topic:({cleaned}) OR author:({cleaned}))"


async def candidates(
    db: Database,
    tenant: str,
    user_id: str,
    text: str,
    qvec: list[float],
    now: datetime,
    session_id: str | None,
    fact_k: int = 30,
    message_k: int = 30,
    recent_k: int = 6,
    recent_since: datetime | None = None,
    statuses: list[str] | None = None,
    as_of: datetime | None = None,
) -> dict[str, Any]:
    """Recall's candidates; with `as_of`, as the memory stood at that time (Messages up to
    it, the Facts valid at it and the Summary versions built from those only)."""
    scope = scope_token(tenant, user_id)
    rows = await db.rows(
        query("recall"),
        tenant=tenant,
        user_id=user_id,
        qvec=qvec,
        now=now,
        lucene=lucene_query(text, scope),
        session_id=session_id,
        fact_k=fact_k,
        message_k=message_k,
        recent_k=recent_k,
        recent_since=recent_since,
        statuses=statuses or RECALLED_STATUSES,
        as_of=as_of,
    )
    out: dict[str, Any] = instants(rows[0])
    return out


async def corrected_messages(
    db: Database, tenant: str, ids: list[str], as_of: datetime | None = None
) -> dict[str, list[tuple[str, str]]]:
    """Message id -> (fact id, content) of the active Facts that replaced what it said, for
    each Message that carries a superseded value (the list is empty when nothing active
    replaced it, e.g. the correction was deleted). With `as_of`: superseded by then, and
    replaced by the Facts valid then."""
    if not ids:
        return {}
    rows = await db.rows(
        query("corrected_messages"),
        tenant=tenant,
        uids=[message_uid(tenant, i) for i in ids],
        as_of=as_of,
    )
    return {r["message_id"]: [(x["fact_id"], x["content"]) for x in r["replaced_by"]] for r in rows}
