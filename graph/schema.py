"""Apply and inspect the schema declared in cypher/schema.cypher."""

from __future__ import annotations

import re

from neo4j import AsyncManagedTransaction

from graph.db import Database, tx_rows
from graph.queries import schema_statements

_NAME = re.compile(r"CREATE (?:\w+ )*?(?:CONSTRAINT|INDEX) (\w+) IF NOT EXISTS")


def declared_names() -> dict[str, set[str]]:
    """Constraint and index names that cypher/schema.cypher declares."""
    out: dict[str, set[str]] = {"constraints": set(), "indexes": set()}
    for stmt in schema_statements():
        m = _NAME.search(stmt)
        if m:
            out["constraints" if " CONSTRAINT " in stmt else "indexes"].add(m.group(1))
    return out


async def apply_schema(db: Database) -> None:
    """Create what is missing (IF NOT EXISTS), then wait for indexes to come online."""
    for stmt in schema_statements():
        async with db.driver.session(database=db.database) as session:
            await (await session.run(stmt)).consume()
    async with db.driver.session(database=db.database) as session:
        await (await session.run("CALL db.awaitIndexes(300)")).consume()


async def server_version(db: Database) -> str:
    async def work(tx: AsyncManagedTransaction) -> str:
        rows = await tx_rows(
            tx,
            "CALL dbms.components() YIELD name, versions, edition "
            "RETURN versions[0] AS version, edition",
        )
        return f"{rows[0]['version']} {rows[0]['edition']}"

    return await db.read(work)
