"""Platform: schema, ingest basics and the GraphQL edge, against the real Neo4j."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from core.settings import Settings
from service.memory import Memory
from tests.integration.helpers import ADD, B, gql


def msg(i: int, **kw: Any) -> dict[str, Any]:
    base = {
        "id": f"m{i}",
        "userId": "u1",
        "sessionId": "s1",
        "role": "user",
        "content": f"hello number {i}",
        "timestamp": "2026-11-30T10:00:00+08:00",
    }
    base.update(kw)
    return base


async def test_server_is_neo4j_5_26(memory: Memory) -> None:
    version = await memory.server_version()
    assert version.startswith("5.26."), version


async def test_add_messages_and_read_back(client: httpx.AsyncClient) -> None:
    r = await gql(client, ADD, m=[msg(1), msg(2, metadata={"device": "ios"})])
    assert r["data"]["addMessages"]["accepted"] == ["m1", "m2"]
    again = await gql(client, ADD, m=[msg(1), msg(3)])
    assert again["data"]["addMessages"]["duplicates"] == ["m1"]
    assert again["data"]["addMessages"]["accepted"] == ["m3"]
    r = await gql(client, 'query { message(id: "m2") { id content metadata role } }')
    assert r["data"]["message"] == {
        "id": "m2",
        "content": "hello number 2",
        "metadata": {"device": "ios"},
        "role": "user",
    }


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"role": "robot"}, "role"),
        ({"timestamp": "yesterday"}, "timestamp"),
        ({"timestamp": "2026-11-30T10:00:00"}, "timestamp"),
        ({"content": "x" * 20_001}, "content"),
        ({"metadata": [1, 2]}, "metadata"),
        ({"metadata": "not json"}, "metadata"),
        ({"id": ""}, "id"),
    ],
)
async def test_bad_item_rejects_whole_batch(
    client: httpx.AsyncClient, memory: Memory, bad: dict[str, Any], field: str
) -> None:
    r = await gql(client, ADD, m=[msg(1), msg(2, **bad)])
    res = r["data"]["addMessages"]
    assert res["accepted"] == []
    assert res["errors"][0]["index"] == 1 and res["errors"][0]["field"] == field
    rows = await memory.db.rows("MATCH (m:Message) RETURN count(m) AS n")
    assert rows[0]["n"] == 0


async def test_batch_over_limit_is_rejected(client: httpx.AsyncClient, settings: Settings) -> None:
    r = await gql(client, ADD, m=[msg(i) for i in range(settings.max_batch + 1)])
    assert r["data"]["addMessages"]["errors"][0]["field"] == "messages"


async def test_missing_field_is_a_graphql_error(client: httpx.AsyncClient) -> None:
    item = msg(1)
    del item["userId"]
    r = await gql(client, ADD, m=[item])
    assert r["errors"] and "userId" in r["errors"][0]["message"]


async def test_auth_and_tenant_isolation(client: httpx.AsyncClient) -> None:
    await gql(client, ADD, m=[msg(1)])
    q = 'query { message(id: "m1") { id } }'
    assert (await gql(client, q))["data"]["message"] == {"id": "m1"}
    assert (await gql(client, q, headers=B))["data"]["message"] is None
    for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": "key-a"}):
        r = await gql(client, q, headers=headers)
        assert r["status"] == 401
        assert r["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
        assert "key-a" not in str(r)


async def test_graphiql_is_served(client: httpx.AsyncClient) -> None:
    r = await client.get("/graphql", headers={"Accept": "text/html"})
    assert r.status_code == 200 and "graphiql" in r.text.lower()
