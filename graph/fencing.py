"""Who may write a user's derived memory: the processing lease a worker claims, and the
fencing token every write of a run checks (a deletion or another worker changes it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

from neo4j import AsyncManagedTransaction

from core.errors import Fenced
from graph.db import Database, Params, tx_rows
from graph.ingest import scope_token, user_uid
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
    of the run (`write_fenced`). None when the user is gone: every write is then fenced."""
    rows = await db.rows(query("user_token"), user_uid=user_uid(tenant, user_id))
    return str(rows[0]["token"]) if rows else None


Rows = list[dict[str, Any]]


@dataclass(frozen=True)
class UserWrite(Generic[T]):
    """One user's part of a write transaction, written only if the user's token is still
    `token`, else fenced (nothing of it written). `steps`: the queries of the part in their
    order, each with this user's parameters (None: the step has nothing to write for this
    user); every write of one kind names the same steps in the same order. `result`: what
    the part gave, from the rows each step returned for this user."""

    tenant: str
    user_id: str
    token: str | None
    steps: tuple[tuple[str, Params | None], ...]
    result: Callable[[dict[str, Rows]], T]


async def write_fenced(db: Database, writes: Sequence[UserWrite[T]]) -> list[T | Fenced]:
    """Several users' writes in one transaction, each fenced on its own, each step one
    query for every user (one row of `$users` per user; cypher/fence_users.cypher first):
    what each part gave, in order, or Fenced for a part a deletion or another worker moved
    since its token was read (nothing of that part is written; the others commit)."""
    if not writes:
        return []
    names = [name for name, _ in writes[0].steps]
    if any([n for n, _ in w.steps] != names for w in writes):
        raise ValueError("the writes of one transaction must name the same steps")
    uids = {user_uid(w.tenant, w.user_id): w for w in writes}
    if len(uids) != len(writes):
        raise ValueError("one part per user in a write transaction")

    async def work(tx: AsyncManagedTransaction) -> list[T | Fenced]:
        now = datetime.now(UTC)
        # sorted: every writer locks Users in one order (as claims do), no lock cycle
        tokens = {
            r["uid"]: r["token"] for r in await tx_rows(tx, query("fence_users"), uids=sorted(uids))
        }
        ok = {
            uid: w for uid, w in uids.items() if w.token is not None and tokens.get(uid) == w.token
        }
        got: dict[str, dict[str, Rows]] = {uid: {n: [] for n in names} for uid in ok}
        for k, name in enumerate(names):
            users = [
                {
                    "tenant": w.tenant,
                    "user_id": w.user_id,
                    "uid": uid,
                    "scope": scope_token(w.tenant, w.user_id),
                    **params,
                }
                for uid, w in ok.items()
                if (params := w.steps[k][1]) is not None
            ]
            if users:
                for row in await tx_rows(tx, query(name), users=users, now=now):
                    got[user_uid(row["tenant"], row["user_id"])][name].append(row)
        return [
            w.result(got[uid])
            if uid in got
            else Fenced("a deletion moved this user's memory; processing starts over")
            for uid, w in uids.items()
        ]

    return await db.write(work)


async def write_one(db: Database, write: UserWrite[T]) -> T:
    """One user's fenced write; Fenced if a deletion or another worker moved the user."""
    (out,) = await write_fenced(db, [write])
    if isinstance(out, Fenced):
        raise out
    return out
