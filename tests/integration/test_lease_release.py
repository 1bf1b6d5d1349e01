"""A stopping process gives back every processing lease it still holds (service/leases.py
`release_all`, the last step of `Runtime.close`), and never one another process holds,
against the real Neo4j."""

from __future__ import annotations

from graph import fencing
from graph.db import Database
from graph.ingest import user_uid
from service.leases import Leases
from service.memory import Memory

T = "t-leases"


async def _user(db: Database, user: str) -> None:
    await db.write_rows(
        "MERGE (u:User {uid: $uid}) SET u.tenant = $t, u.user_id = $u",
        uid=user_uid(T, user),
        t=T,
        u=user,
    )


async def _live(db: Database) -> dict[str, str]:
    rows = await db.rows(
        "MATCH (u:User) WHERE u.tenant = $t AND u.lease_owner IS NOT NULL"
        " AND u.lease_expires > datetime() RETURN u.user_id AS user, u.lease_owner AS owner",
        t=T,
    )
    return {r["user"]: r["owner"] for r in rows}


async def test_a_process_gives_back_the_leases_left_behind_and_no_others(memory: Memory) -> None:
    db = memory.db
    for user in ("u1", "u2", "u3"):
        await _user(db, user)
    mine, theirs = Leases(db, "host:1:mine", 60), Leases(db, "host:2:theirs", 60)
    # leases a cancelled run left behind: claimed, never released
    assert await fencing.claim_lease(db, T, "u1", mine.owner, 60) is not None
    assert await fencing.claim_lease(db, T, "u2", mine.owner, 60) is not None
    assert await fencing.claim_lease(db, T, "u3", theirs.owner, 60) is not None

    assert await mine.release_all() == 2
    assert await _live(db) == {"u3": theirs.owner}
    assert await mine.release_all() == 0  # nothing left: a second call is a no-op

    # a user given back is free at once for another worker, whose lease stays its own
    assert await fencing.claim_lease(db, T, "u1", theirs.owner, 60) is not None
    assert await mine.release_all() == 0
    assert await _live(db) == {"u1": theirs.owner, "u3": theirs.owner}


async def test_a_unit_claims_its_users_together_and_gives_them_back(memory: Memory) -> None:
    """A unit of work's leases (`Leases.hold_many`): the users no other owner holds are
    claimed in one transaction, each with its own fencing token, and all given back at the
    end; the one another owner holds stays its own."""
    db = memory.db
    for user in ("u1", "u2", "u3"):
        await _user(db, user)
    mine, theirs = Leases(db, "host:1:mine", 60), Leases(db, "host:2:theirs", 60)
    assert await fencing.claim_lease(db, T, "u2", theirs.owner, 60) is not None
    async with mine.hold_many([(T, "u1"), (T, "u2"), (T, "u3")]) as held:
        assert sorted(held) == [(T, "u1"), (T, "u3")]
        assert await _live(db) == {"u1": mine.owner, "u2": theirs.owner, "u3": mine.owner}
        tokens = [await fencing.user_token(db, T, u) for u in ("u1", "u3")]
        assert [fencing.lease_of(t) for t in tokens] == [mine.held(T, "u1"), mine.held(T, "u3")]
    assert await _live(db) == {"u2": theirs.owner}
    assert mine.held(T, "u1") is None
