"""`Database.reads`: a unit of work's reads in one read transaction (graph/db.py)."""

from __future__ import annotations

from typing import Any

import pytest
from neo4j import AsyncSession
from neo4j.exceptions import CypherSyntaxError

from core.errors import QueryTimeout
from graph.db import Database

# the start of the current transaction: equal for two statements only in one transaction
TX_START = "RETURN toString(datetime.transaction()) AS t, toString(datetime.statement()) AS s"


@pytest.fixture
def begins(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the explicit transactions begun (a read scope's; single queries begin none)."""
    counts = [0]
    begin = AsyncSession.begin_transaction

    async def counted_begin(self: AsyncSession, *a: Any, **k: Any) -> Any:
        counts[0] += 1
        return await begin(self, *a, **k)

    monkeypatch.setattr(AsyncSession, "begin_transaction", counted_begin)
    return counts


async def test_the_reads_of_a_scope_run_in_one_transaction(db: Database, begins: list[int]) -> None:
    await db.write_rows("UNWIND range(1, 3) AS i CREATE (:ScopeProbe {i: i})")
    async with db.reads() as r:
        first = await r.rows(TX_START)
        rows = await r.rows("MATCH (p:ScopeProbe) RETURN p.i AS i ORDER BY i")
        records = await r.records("MATCH (p:ScopeProbe) RETURN count(p) AS n")
        last = await r.rows(TX_START)
    assert [x["i"] for x in rows] == [1, 2, 3]
    assert records[0]["n"] == 3
    assert first[0]["t"] == last[0]["t"]  # the same transaction
    assert begins[0] == 1
    # outside a scope each query is a transaction of its own
    one, two = await db.rows(TX_START), await db.rows(TX_START)
    assert one[0]["t"] != two[0]["t"]


async def test_a_scope_without_reads_begins_nothing(db: Database, begins: list[int]) -> None:
    async with db.reads():
        pass
    assert begins[0] == 0


async def test_a_scope_refuses_writes(db: Database) -> None:
    async def work(tx: Any) -> None:
        await tx.run("CREATE (:ScopeProbe)")

    async with db.reads() as r:
        with pytest.raises(TypeError, match="reads only"):
            await r.write_rows("CREATE (:ScopeProbe) RETURN 1 AS x")
        with pytest.raises(TypeError, match="single queries"):
            await r.write(work)
        with pytest.raises(TypeError, match="single queries"):
            await r.read(work)
    assert (await db.rows("MATCH (p:ScopeProbe) RETURN count(p) AS n"))[0]["n"] == 0


async def test_an_error_ends_the_scope_and_the_next_reads_work(db: Database) -> None:
    with pytest.raises(CypherSyntaxError):
        async with db.reads() as r:
            await r.rows("RETURN 1 AS x")
            await r.rows("RETURN RETURN")
    for _ in range(3):  # connections went back to the pool
        async with db.reads() as r:
            assert (await r.rows("RETURN 2 AS x"))[0]["x"] == 2
    assert (await db.rows("RETURN 3 AS x"))[0]["x"] == 3


async def test_a_scope_has_the_transaction_timeout(db: Database) -> None:
    slow = Database(db.driver, db.database, timeout_s=0.3, call_timeout_s=30.0)
    with pytest.raises(QueryTimeout):
        async with slow.reads() as r:
            await r.rows("UNWIND range(1, 300000000) AS x RETURN count(x) AS n")
    assert (await db.rows("RETURN 1 AS x"))[0]["x"] == 1
