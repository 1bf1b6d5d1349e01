"""Who may write a user's derived memory: the processing lease a worker claims, and the
fencing token every write of a run checks (a deletion or another worker changes it)."""

from __future__ import annotations

from datetime import UTC, datetime

from neo4j import AsyncManagedTransaction

from core.errors import Fenced
from graph.db import Database, tx_rows
from graph.ingest import user_uid
from graph.queries import query


async def claim_lease(
    db: Database, tenant: str, user_id: str, owner: str, ttl_s: float
) -> int | None:
    """Take the user's processing lease for `owner` (or extend its own live one): its
    fencing token, or None if another owner holds a live lease (or the user is gone)."""
    rows = await db.write_rows(
        query("claim_lease"),
        user_uid=user_uid(tenant, user_id),
        owner=owner,
        now=datetime.now(UTC),
        ttl_ms=int(ttl_s * 1000),
    )
    return int(rows[0]["lease"]) if rows else None


async def renew_lease(
    db: Database, tenant: str, user_id: str, owner: str, lease: int, ttl_s: float
) -> bool:
    """Extend a lease `owner` still holds; False if it was taken meanwhile."""
    rows = await db.write_rows(
        query("renew_lease"),
        user_uid=user_uid(tenant, user_id),
        owner=owner,
        lease=lease,
        now=datetime.now(UTC),
        ttl_ms=int(ttl_s * 1000),
    )
    return bool(rows)


async def release_lease(db: Database, tenant: str, user_id: str, owner: str, lease: int) -> None:
    await db.write_rows(
        query("release_lease"), user_uid=user_uid(tenant, user_id), owner=owner, lease=lease
    )


async def release_owner(db: Database, owner: str) -> int:
    """Give back every lease `owner` still holds; how many there were."""
    rows = await db.write_rows(query("release_owner_leases"), owner=owner)
    return int(rows[0]["released"]) if rows else 0


def lease_of(token: str | None) -> int | None:
    """The lease token a user token carries (its last part)."""
    if token is None:
        return None
    return int(token.rsplit("#", 1)[1])


async def user_token(db: Database, tenant: str, user_id: str) -> str | None:
    """The user's fencing token: read before the pending Messages, checked by every write
    of the run (`fence`). None when the user is gone: every write is then fenced."""
    rows = await db.rows(query("user_token"), user_uid=user_uid(tenant, user_id))
    return str(rows[0]["token"]) if rows else None


async def fence(tx: AsyncManagedTransaction, tenant: str, user_id: str, token: str | None) -> None:
    """Lock the User node and check its token: first statement of a run's write."""
    rows = await tx_rows(tx, query("fence"), user_uid=user_uid(tenant, user_id))
    if token is None or not rows or rows[0]["token"] != token:
        raise Fenced("a deletion moved this user's memory; processing starts over")
