"""Tenant isolation: every query and mutation, with another tenant's key, a missing key
and a wrong key, gets nothing of the first tenant's data."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.integration.helpers import ADD, A, B, gql, seed


async def seeded(client: httpx.AsyncClient) -> dict[str, str]:
    await gql(client, ADD, m=seed("zh"))
    t = await gql(
        client,
        """query { topics(userId: "u-seed") { id summaries { id
        sourceFacts { id } } } }""",
    )
    topic = t["data"]["topics"][0]
    return {
        "summary": topic["summaries"][0]["id"],
        "fact": topic["summaries"][0]["sourceFacts"][0]["id"],
        "message": "m1",
    }


QUERIES: list[tuple[str, str]] = [
    (
        "memory",
        'query { memory(userId: "u-seed", query: "跑鞋") { formattedContext '
        "midTermContext { id } shortTermContext { id } longTermUserContext { id } } }",
    ),
    ("topics", 'query { topics(userId: "u-seed") { id } }'),
    ("facts", 'query { facts(userId: "u-seed", includeInactive: true) { id } }'),
    ("fact", 'query { fact(id: "{fact}") { id } }'),
    ("summary", 'query { summary(id: "{summary}") { id } }'),
    ("message", 'query { message(id: "{message}") { id } }'),
    ("trace", 'query { trace(id: "{summary}") { nodes { id } } }'),
    ("auditLog", "query { auditLog { id } }"),
]
MUTATIONS: list[tuple[str, str]] = [
    ("setMemoryStatus", 'mutation { setMemoryStatus(id: "{summary}", status: "archived") { id } }'),
    ("boostSummary", 'mutation { boostSummary(id: "{summary}", boost: 3) { id } }'),
    ("deletionImpact", 'query { deletionImpact(messageId: "{message}") { removedFacts } }'),
    ("deleteMessage", 'mutation { deleteMessage(id: "{message}") { counts } }'),
    ("forgetUser", 'mutation { forgetUser(userId: "u-seed") { remaining counts } }'),
    ("runMaintenance", 'mutation { runMaintenance(now: "2030-01-01T00:00:00Z") { examined } }'),
]


def fill(doc: str, ids: dict[str, str]) -> str:
    for k, v in ids.items():
        doc = doc.replace("{" + k + "}", v)
    return doc


def empty(data: Any) -> bool:
    """No id, no content: None, [], "", 0 or maps of those."""
    if isinstance(data, dict):
        return all(empty(v) for v in data.values())
    if isinstance(data, list):
        return all(empty(v) for v in data)
    return data in (None, "", 0, False)


async def snapshot(client: httpx.AsyncClient, ids: dict[str, str]) -> Any:
    r = await gql(
        client,
        fill(
            """query { summary(id: "{summary}") { memoryStatus
        retrievalBoost validity } facts(userId: "u-seed") { id } }""",
            ids,
        ),
    )
    return r["data"]


@pytest.mark.parametrize(("name", "doc"), QUERIES + MUTATIONS)
async def test_other_tenant_sees_and_changes_nothing(
    client: httpx.AsyncClient, name: str, doc: str
) -> None:
    ids = await seeded(client)
    before = await snapshot(client, ids)
    r = await gql(client, fill(doc, ids), headers=B)
    assert r["status"] == 200
    data = r.get("data") or {}
    leaked = {k: v for k, v in data.items() if not empty(v)}
    text = str(r)
    assert not leaked or name in ("runMaintenance",), (name, r)
    sent = fill(doc, ids)
    for secret in (*ids.values(), "慢跑", "u-seed"):
        if secret in sent:
            continue  # an error may name the id the caller itself sent
        assert secret not in text, (name, secret, r)
    if errors := r.get("errors"):
        assert errors[0]["extensions"]["code"] in ("NOT_FOUND", "BAD_INPUT"), errors
    assert await snapshot(client, ids) == before, f"{name} changed tenant A's data"


@pytest.mark.parametrize(
    "headers", [{}, {"Authorization": "Bearer wrong"}, {"Authorization": "Basic a2V5LWE="}]
)
@pytest.mark.parametrize(("name", "doc"), QUERIES + MUTATIONS)
async def test_missing_or_wrong_key_is_401(
    client: httpx.AsyncClient, headers: dict[str, str], name: str, doc: str
) -> None:
    ids = {"summary": "s_x", "fact": "f_x", "message": "m1"}
    r = await gql(client, fill(doc, ids), headers=headers)
    assert r["status"] == 401 and r["data"] is None
    assert r["errors"][0]["extensions"]["code"] == "UNAUTHENTICATED"
    assert "key-a" not in str(r) and "wrong" not in str(r)


async def test_same_user_id_in_two_tenants_stays_apart(client: httpx.AsyncClient) -> None:
    await gql(client, ADD, m=seed("zh"))
    other = [dict(m, content="I live in Paris") for m in seed("zh")[:1]]
    await gql(client, ADD, headers=B, m=other)
    a = await gql(client, 'query { message(id: "m1") { content } }', headers=A)
    b = await gql(client, 'query { message(id: "m1") { content } }', headers=B)
    assert a["data"]["message"]["content"] != b["data"]["message"]["content"]
    fb = await gql(client, 'query { facts(userId: "u-seed") { content } }', headers=B)
    assert all("Paris" in f["content"] for f in fb["data"]["facts"])
