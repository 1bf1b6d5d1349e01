"""Causal chaining (GUMEM_NEO4J_CAUSAL): every transaction of a Database carries the
bookmarks of the writes before it, through each of its paths (one query, a managed
transaction, a read scope), against the real Neo4j."""

from __future__ import annotations

from typing import Any

from neo4j import AsyncGraphDatabase, AsyncManagedTransaction, Bookmarks

from core.settings import Settings
from graph.db import Database
from service.runtime import Runtime


class Seen:
    """What a bookmark manager was told and asked (its consumer and supplier hooks)."""

    def __init__(self) -> None:
        self.updates: list[frozenset[str]] = []
        self.asked = 0

    def consume(self, bookmarks: Bookmarks) -> None:
        self.updates.append(frozenset(bookmarks.raw_values))

    def supply(self) -> Bookmarks:
        self.asked += 1
        return Bookmarks.from_raw_values(())


async def test_reads_carry_the_bookmarks_of_the_writes_before_them(runtime: Runtime) -> None:
    seen = Seen()
    manager = AsyncGraphDatabase.bookmark_manager(
        bookmarks_consumer=seen.consume, bookmarks_supplier=seen.supply
    )
    base = runtime.memory.db
    db = Database(base.driver, base.database, base.timeout_s, base.call_timeout_s, manager)

    await db.write_rows("MERGE (p:GumemBookmarkProbe {id: 1}) SET p.n = coalesce(p.n, 0) + 1")
    assert seen.updates and seen.updates[-1], "a write gives the manager its bookmark"
    after_write = seen.updates[-1]
    assert after_write <= frozenset(await manager.get_bookmarks())

    asked = seen.asked
    rows = await db.rows("MATCH (p:GumemBookmarkProbe {id: 1}) RETURN p.n AS n")
    assert rows and rows[0]["n"] >= 1
    assert seen.asked > asked, "a single read asks the manager for the bookmarks to carry"

    async def count(tx: AsyncManagedTransaction) -> Any:
        return await (await tx.run("MATCH (p:GumemBookmarkProbe) RETURN count(p) AS c")).single()

    asked = seen.asked
    await db.read(count)
    assert seen.asked > asked, "a managed read transaction carries them too"

    asked = seen.asked
    async with db.reads() as scope:
        await scope.rows("MATCH (p:GumemBookmarkProbe) RETURN count(p) AS c")
    assert seen.asked > asked, "and a read scope"

    await db.write_rows("MATCH (p:GumemBookmarkProbe) DETACH DELETE p")


def test_the_runtime_chains_by_default_and_can_be_told_not_to() -> None:
    assert Settings().neo4j_causal is True
    assert Settings(neo4j_causal=False).neo4j_causal is False


async def test_the_runtime_database_uses_the_drivers_bookmark_manager(runtime: Runtime) -> None:
    db = runtime.memory.db
    assert db.bookmarks is db.driver.execute_query_bookmark_manager
