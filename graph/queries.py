"""Load the named Cypher queries in cypher/ (one query per file, values as $params)."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Any, LiteralString, cast

from core.inputs import Page
from graph.db import Database

# the `cypher` package's data: found the same in a checkout and in an installed wheel
CYPHER_DIR = files("cypher")


@cache
def query(name: str) -> LiteralString:
    """The text of cypher/<name>.cypher. Names come from code, never from callers."""
    if not name.replace("_", "").isalnum():
        raise ValueError(f"bad query name {name!r}")
    return cast(LiteralString, CYPHER_DIR.joinpath(f"{name}.cypher").read_text(encoding="utf-8"))


async def user_rows(
    db: Database,
    name: str,
    tenant: str,
    user_id: str | None,
    page: Page | None = None,
    **params: Any,
) -> list[dict[str, Any]]:
    """The rows of the named read over one user's memory: `tenant` and `user_id` go to it
    as $tenant and $user_id, a `page` as $limit and $offset, with `params`."""
    if page is not None:
        params.update(limit=page.limit, offset=page.offset)
    return await db.rows(query(name), tenant=tenant, user_id=user_id, **params)


def shown_query(name: str) -> str:
    """A query shown to people rather than run (Neo4j Browser's, in a trace): the text of
    cypher/<name>.cypher without its comment lines, its other lines joined by one space."""
    lines = (ln.strip() for ln in query(name).splitlines())
    return " ".join(ln for ln in lines if ln and not ln.startswith("//"))


def schema_statements() -> list[LiteralString]:
    """The statements of cypher/schema.cypher, comments left out."""
    text = query("schema")
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("//")]
    return [cast(LiteralString, s.strip()) for s in "\n".join(lines).split(";") if s.strip()]
