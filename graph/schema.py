"""Install the schema: the neomodel classes of graph/nodes.py, then cypher/schema.cypher.

The node classes declare the uniqueness constraints and single-property indexes; neomodel
creates them under its own names (``constraint_unique_<Label>_<property>``,
``index_<Label>_<property>``). cypher/schema.cypher keeps what neomodel cannot declare.

A database made before the models were the declaration holds the same rules under other
names (``message_uid``, ``message_status`` …). Neo4j refuses a second rule on the same
label and property (``ConstraintAlreadyExists`` / ``IndexAlreadyExists``), which neomodel
swallows, so the old names would stay. The start-up migration therefore drops a rule that
covers a declared label and property under another name, and neomodel then creates it under
the declared one. Neo4j 5.26 does not let a uniqueness constraint be dropped and re-created
in one transaction, so for a moment at start-up the old constraint is gone and the new one
not yet made; if a concurrent writer made a duplicate in that moment, creating the
constraint fails and start-up stops with a StorageUnavailable naming Neo4j's code (no data
is lost; remove the duplicate and start again). A second start finds nothing to migrate
and changes nothing.
"""

from __future__ import annotations

import io
import logging
from dataclasses import dataclass
from typing import Literal

from neo4j import AsyncManagedTransaction
from neo4j.exceptions import Neo4jError
from neomodel import adb, get_config

from core.errors import StorageUnavailable
from graph.db import Database, tx_rows
from graph.nodes import NODE_CLASSES
from graph.queries import query, schema_statements

log = logging.getLogger(__name__)

RuleKind = Literal["constraint", "index"]


@dataclass(frozen=True)
class Rule:
    """One constraint or single-property index a node class declares."""

    kind: RuleKind  # "constraint": UNIQUENESS; "index": RANGE
    label: str
    prop: str
    name: str


@dataclass(frozen=True)
class Existing:
    """A node constraint or index in the database (``SHOW CONSTRAINTS / INDEXES``)."""

    kind: RuleKind
    id: int  # Neo4j's: a rule dropped and re-created gets a new one
    name: str
    type: str  # UNIQUENESS, RANGE, FULLTEXT, ...
    labels: tuple[str, ...]
    properties: tuple[str, ...]
    state: str  # ONLINE, POPULATING, FAILED (a constraint: ONLINE)

    def covers(self, rule: Rule) -> bool:
        want = "UNIQUENESS" if rule.kind == "constraint" else "RANGE"
        return (
            self.kind == rule.kind
            and self.type == want
            and self.labels == (rule.label,)
            and self.properties == (rule.prop,)
        )


def declared_rules() -> list[Rule]:
    """What the node classes declare, named as neomodel names them when it installs them
    (neomodel/async_/schema.py: ``_create_node_constraint``, ``_create_node_index``)."""
    out: list[Rule] = []
    for cls in NODE_CLASSES:
        label: str = cls.__label__
        for name, prop in cls.defined_properties(aliases=False, rels=False).items():
            db_prop = prop.get_db_property_name(name)
            if prop.unique_index:
                out.append(
                    Rule("constraint", label, db_prop, f"constraint_unique_{label}_{db_prop}")
                )
            elif prop.index:
                out.append(Rule("index", label, db_prop, f"index_{label}_{db_prop}"))
    return out


def declared_cypher_indexes() -> set[str]:
    """Index names that cypher/schema.cypher creates (what the models cannot declare)."""
    out: set[str] = set()
    for stmt in schema_statements():
        words = stmt.split()
        if words[0] == "CREATE" and "INDEX" in words:
            out.add(words[words.index("INDEX") + 1])
    return out


async def existing_rules(db: Database) -> list[Existing]:
    """The node constraints and indexes in the database (a constraint's index left out)."""
    out: list[Existing] = []
    sources: tuple[tuple[RuleKind, str], ...] = (
        ("constraint", "schema_constraints"),
        ("index", "schema_indexes"),
    )
    for kind, name in sources:
        for r in await db.rows(query(name)):
            out.append(
                Existing(
                    kind,
                    r["id"],
                    r["name"],
                    r["type"],
                    tuple(r["labels"]),
                    tuple(r["properties"]),
                    r["state"],
                )
            )
    return out


def renames(declared: list[Rule], existing: list[Existing]) -> list[tuple[Existing, Rule]]:
    """Rules in place that cover a declared label and property under another name."""
    out: list[tuple[Existing, Rule]] = []
    for rule in declared:
        out.extend((e, rule) for e in existing if e.covers(rule) and e.name != rule.name)
    return out


async def bind_models(db: Database) -> None:
    """Hand the process's driver and database to neomodel (it opens no driver of its own)."""
    get_config().database_name = db.database
    await adb.set_connection(driver=db.driver)


async def _run(db: Database, query_name: str, **params: str) -> None:
    # schema commands run in auto-commit transactions
    async with db.driver.session(database=db.database) as session:
        await (await session.run(query(query_name), params)).consume()


async def migrate(db: Database) -> list[tuple[str, str]]:
    """Drop the rules that cover a declared label and property under another name, so that
    neomodel creates them under its own. Returns the (old, new) names."""
    done: list[tuple[str, str]] = []
    for old, rule in renames(declared_rules(), await existing_rules(db)):
        await _run(
            db, "drop_constraint" if old.kind == "constraint" else "drop_index", name=old.name
        )
        log.info("schema: %s %s is replaced by %s", old.kind, old.name, rule.name)
        done.append((old.name, rule.name))
    return done


async def install_models(db: Database) -> None:
    """neomodel's install of every node class (it skips, and reports to the sink, what
    exists already under the same name)."""
    if adb.driver is not db.driver:
        await bind_models(db)
    sink = io.StringIO()
    for cls in NODE_CLASSES:
        await adb.install_labels(cls, quiet=True, stdout=sink)
    if sink.getvalue():
        log.debug("schema: neomodel reported %d lines", len(sink.getvalue().splitlines()))


async def apply_schema(db: Database) -> list[tuple[str, str]]:
    """Migrate old names, install the models, apply cypher/schema.cypher (IF NOT EXISTS),
    then wait for indexes to come online. Idempotent. Returns the renamed (old, new)."""
    try:
        renamed = await migrate(db)
        await install_models(db)
    except Neo4jError as exc:  # e.g. a duplicate made while a constraint was re-created
        log.error("schema: the declared constraints and indexes cannot be installed (%s)", exc.code)
        raise StorageUnavailable(f"schema cannot be installed: {exc.code}") from exc
    for stmt in schema_statements():
        async with db.driver.session(database=db.database) as session:
            await (await session.run(stmt)).consume()
    await _run(db, "await_indexes")
    return renamed


async def server_version(db: Database) -> str:
    async def work(tx: AsyncManagedTransaction) -> str:
        rows = await tx_rows(tx, query("server_version"))
        return f"{rows[0]['version']} {rows[0]['edition']}"

    return await db.read(work)
