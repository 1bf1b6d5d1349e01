"""The neomodel classes are the schema: what they declare is what SHOW CONSTRAINTS / SHOW
INDEXES list on the real Neo4j, start-up is idempotent, and a database made by the schema of
before (tests/fixtures/schema_before_models.cypher) is migrated with its data intact."""

from __future__ import annotations

import httpx
import pytest
from neo4j.exceptions import ConstraintError
from neomodel import adb

from graph.db import Database
from graph.nodes import NODE_CLASSES, Message
from graph.schema import (
    Existing,
    apply_schema,
    declared_cypher_indexes,
    declared_rules,
    existing_rules,
)
from service.memory import Memory
from tests.integration.helpers import ADD, FIXTURES, gql, seed

OLD_SCHEMA = FIXTURES / "schema_before_models.cypher"


def _statements(text: str) -> list[str]:
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("//")]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


def _by_name(rules: list[Existing]) -> dict[str, Existing]:
    return {r.name: r for r in rules}


async def _assert_as_declared(db: Database) -> dict[str, Existing]:
    """Every rule the models declare is in place under neomodel's name, on the label and
    property declared; nothing else is (besides schema.cypher's indexes)."""
    have = _by_name(await existing_rules(db))
    declared = declared_rules()
    assert declared, "the models declare no constraint or index"
    for rule in declared:
        got = have.get(rule.name)
        assert got is not None, f"{rule.name} missing: {sorted(have)}"
        assert got.kind == rule.kind
        assert got.type == ("UNIQUENESS" if rule.kind == "constraint" else "RANGE")
        assert got.labels == (rule.label,)
        assert got.properties == (rule.prop,)
        assert got.state == "ONLINE"
    constraints = {r.name for r in have.values() if r.kind == "constraint"}
    assert constraints == {r.name for r in declared if r.kind == "constraint"}
    indexes = {r.name for r in have.values() if r.kind == "index"}
    want = {r.name for r in declared if r.kind == "index"} | declared_cypher_indexes()
    assert indexes == want
    assert all(r.state == "ONLINE" for r in have.values())
    # recall scans one user's nodes by exact cosine: no vector index is kept up to date
    assert "VECTOR" not in {r.type for r in have.values()}
    assert have["summary_text"].type == "FULLTEXT"
    return have


def test_models_declare_every_label() -> None:
    labels = {cls.__label__ for cls in NODE_CLASSES}
    assert {"Message", "Fact", "Summary", "Topic", "Entity", "User", "Session"} <= labels
    constrained = {r.label for r in declared_rules() if r.kind == "constraint"}
    assert constrained == labels  # every label has its unique id


async def test_schema_is_as_declared_and_idempotent(memory: Memory) -> None:
    await apply_schema(memory.db)
    first = await _assert_as_declared(memory.db)
    assert await apply_schema(memory.db) == []  # a second start changes nothing: same ids
    second = await _assert_as_declared(memory.db)
    assert {n: r.id for n, r in second.items()} == {n: r.id for n, r in first.items()}


async def _counts(db: Database) -> dict[str, int]:
    rows = await db.rows(
        "MATCH (n) UNWIND labels(n) AS label RETURN label, count(*) AS n ORDER BY label"
    )
    return {r["label"]: r["n"] for r in rows}


async def test_database_of_the_old_schema_is_migrated(
    memory: Memory, client: httpx.AsyncClient
) -> None:
    db = memory.db
    r = await gql(client, ADD, m=seed("en")[:6])
    assert r["data"]["addMessages"]["accepted"], r
    # the schema as main made it: constraints and indexes under the old names
    await adb.drop_constraints()
    await adb.drop_indexes()
    async with db.driver.session(database=db.database) as session:
        for stmt in _statements(OLD_SCHEMA.read_text()):
            await (await session.run(stmt)).consume()
    old = _by_name(await existing_rules(db))
    assert {"message_uid", "fact_id", "user_uid", "message_status"} <= set(old)
    before = await _counts(db)
    assert before.get("Message", 0) >= 6 and before.get("Fact", 0) >= 1, before

    try:
        renamed = await apply_schema(db)  # what start-up runs
        have = await _assert_as_declared(db)
    finally:
        await apply_schema(db)  # leave the declared schema to the tests that follow
    # every declared rule of the old labels existed under its old name and was renamed,
    # nothing else (a label added since, such as Foreground, or a rule added since, gets
    # its rules created)
    old_labels = {r.label for r in declared_rules()} - {"Foreground"}
    added_since = {"index_User_lease_owner"}  # a process gives back its leases at its end
    assert sorted(new for _, new in renamed) == sorted(
        r.name for r in declared_rules() if r.label in old_labels and r.name not in added_since
    )
    assert added_since <= set(have)
    assert {old for old, _ in renamed} <= set(old)
    assert not {"message_uid", "fact_id", "user_uid", "message_status"} & set(have)
    assert await _counts(db) == before  # data intact

    # the uniqueness the old constraint gave holds under the new name
    row = (await db.rows("MATCH (m:Message) RETURN m.uid AS uid LIMIT 1"))[0]
    with pytest.raises(ConstraintError):
        async with db.driver.session(database=db.database) as session:
            await (await session.run("CREATE (:Message {uid: $uid})", uid=row["uid"])).consume()

    assert await apply_schema(db) == []  # a second start after the migration: no change
    again = await _assert_as_declared(db)
    assert {n: r.id for n, r in again.items()} == {n: r.id for n, r in have.items()}


async def test_object_mapper_reads_a_message_by_uid(
    memory: Memory, client: httpx.AsyncClient
) -> None:
    """neomodel maps what the batched Cypher wrote (the classes document the properties)."""
    item = seed("en")[0]
    await gql(client, ADD, m=[item])
    rows = await memory.db.rows("MATCH (m:Message) RETURN m.uid AS uid")
    node = await Message.nodes.get(uid=rows[0]["uid"])
    assert node.message_id == item["id"]
    assert node.content == item["content"]
