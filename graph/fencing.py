"""Who may write a user's derived memory: the processing lease a worker claims, and the
fencing token every write of a run checks (a deletion or another worker changes it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Generic, TypeVar

from neo4j import AsyncManagedTransaction

from core.errors import Fenced
from graph.db import Database, Work, tx_rows
from graph.ingest import user_uid
from graph.queries import query

T = TypeVar("T")


Key = tuple[str, str]  # (tenant, user id)


async def claim_leases(db: Database, users: list[Key], owner: str, ttl_s: float) -> dict[Key, int]:
    """Take the users' processing leases for `owner` (or extend its own live ones), in one
    transaction: each claimed user's fencing token; a user another owner holds a live lease
    on (or one that is gone) is left out."""
    uids = {user_uid(t, u): (t, u) for t, u in users}
    rows = await db.write_rows(
        query("claim_leases"),
        user_uids=sorted(uids),  # one order for every claim: no lock cycle between two
        owner=owner,
        now=datetime.now(UTC),
        ttl_ms=int(ttl_s * 1000),
    )
    return {uids[r["uid"]]: int(r["lease"]) for r in rows}


async def renew_leases(db: Database, leases: dict[Key, int], owner: str, ttl_s: float) -> set[Key]:
    """Extend the leases `owner` still holds; the users whose lease was extended (one
    taken meanwhile is not)."""
    uids = {user_uid(t, u): (t, u) for t, u in leases}
    rows = await db.write_rows(
        query("renew_leases"),
        rows=[{"uid": uid, "lease": leases[key]} for uid, key in sorted(uids.items())],
        owner=owner,
        now=datetime.now(UTC),
        ttl_ms=int(ttl_s * 1000),
    )
    return {uids[r["uid"]] for r in rows}


async def release_leases(db: Database, leases: dict[Key, int], owner: str) -> None:
    """Give back leases `owner` holds (a lease taken meanwhile stays its new owner's)."""
    rows = [{"uid": user_uid(t, u), "lease": lease} for (t, u), lease in leases.items()]
    await db.write_rows(
        query("release_leases"), rows=sorted(rows, key=lambda r: r["uid"]), owner=owner
    )


async def claim_lease(
    db: Database, tenant: str, user_id: str, owner: str, ttl_s: float
) -> int | None:
    """One user's lease (`claim_leases`): its fencing token, or None if another owner holds
    a live lease (or the user is gone)."""
    return (await claim_leases(db, [(tenant, user_id)], owner, ttl_s)).get((tenant, user_id))


async def renew_lease(
    db: Database, tenant: str, user_id: str, owner: str, lease: int, ttl_s: float
) -> bool:
    """Extend a lease `owner` still holds; False if it was taken meanwhile."""
    return bool(await renew_leases(db, {(tenant, user_id): lease}, owner, ttl_s))


async def release_lease(db: Database, tenant: str, user_id: str, owner: str, lease: int) -> None:
    await release_leases(db, {(tenant, user_id): lease}, owner)


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


async def holds(tx: AsyncManagedTransaction, tenant: str, user_id: str, token: str | None) -> bool:
    """Lock the User node and check its token: whether a run that read `token` may still
    write the user's memory (no deletion, no other worker since). The first statement of
    each user's part of a write transaction."""
    rows = await tx_rows(tx, query("fence"), user_uid=user_uid(tenant, user_id))
    return token is not None and bool(rows) and rows[0]["token"] == token


@dataclass(frozen=True)
class UserWrite(Generic[T]):
    """One user's part of a write transaction: `work` runs only if the user's token is
    still `token` (`holds`), else the part is fenced and nothing of it is written."""

    tenant: str
    user_id: str
    token: str | None
    work: Work[T]


async def write_fenced(db: Database, writes: Sequence[UserWrite[T]]) -> list[T | Fenced]:
    """Several users' writes in one transaction, each fenced on its own: what each part's
    work gave, in order, or Fenced for a part a deletion or another worker moved since its
    token was read (nothing of that part is written; the others commit)."""

    async def work(tx: AsyncManagedTransaction) -> list[T | Fenced]:
        out: dict[int, T | Fenced] = {}
        # Users locked in one order (`claim_leases`'s): no lock cycle between two writers
        for i in sorted(
            range(len(writes)), key=lambda i: user_uid(writes[i].tenant, writes[i].user_id)
        ):
            w = writes[i]
            if await holds(tx, w.tenant, w.user_id, w.token):
                out[i] = await w.work(tx)
            else:
                out[i] = Fenced("a deletion moved this user's memory; processing starts over")
        return [out[i] for i in range(len(writes))]

    return await db.write(work) if writes else []


async def write_one(db: Database, write: UserWrite[T]) -> T:
    """One user's fenced write; Fenced if a deletion or another worker moved the user."""
    (out,) = await write_fenced(db, [write])
    if isinstance(out, Fenced):
        raise out
    return out
