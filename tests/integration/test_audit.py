"""Audit: traces both ways, deletion previews that match deletions, forgetting a user."""

from __future__ import annotations

from typing import Any

import httpx

from service.memory import Memory
from tests.integration.helpers import ADD, gql, seed

IMPACT_FIELDS = """messageId removedFacts keptFacts restoredFacts rebuiltSummaries
  retiredSummaries purgedVersions newSummaries orphanEntities orphanTopics"""
IMPACT = f"query($id: ID!) {{ deletionImpact(messageId: $id) {{ {IMPACT_FIELDS} }} }}"
DELETE = (
    f"mutation($id: ID!) {{ deleteMessage(id: $id) {{ counts impact {{ {IMPACT_FIELDS} }} }} }}"
)
FACTS = """query($u: String!) { facts(userId: $u, includeInactive: true) { id content
  sourceMessages { id } } }"""
SUMMARY_TEXT = """query($u: String!) { topics(userId: $u) { name summaries { id content } } }"""
TRACE = """query($id: ID!) { trace(id: $id) { rootKind cypher params
  nodes { id label } edges { source type target } } }"""


async def active_summaries(client: httpx.AsyncClient, user: str) -> list[dict[str, Any]]:
    topics = (await gql(client, SUMMARY_TEXT, u=user))["data"]["topics"]
    return [s for t in topics for s in t["summaries"]]


async def test_trace_both_ways(client: httpx.AsyncClient) -> None:
    await gql(client, ADD, m=seed("zh"))
    summary = (await active_summaries(client, "u-seed"))[0]
    t = (await gql(client, TRACE, id=summary["id"]))["data"]["trace"]
    labels = {n["label"] for n in t["nodes"]}
    assert {"Summary", "Fact", "Message", "Topic"} <= labels
    assert {"SUPPORTS", "SOURCE", "IN_TOPIC"} <= {e["type"] for e in t["edges"]}
    assert "$id" in t["cypher"] and t["params"] == {"id": summary["id"]}
    back = (await gql(client, TRACE, id="e8"))["data"]["trace"]
    assert back["rootKind"] == "Message"
    assert any(n["label"] == "Summary" for n in back["nodes"])
    assert any(e["type"] == "SOURCE" and e["target"] == "e8" for e in back["edges"])


async def test_delete_skip_event_removes_its_fact(
    client: httpx.AsyncClient, memory: Memory
) -> None:
    await gql(client, ADD, m=seed("zh"))
    preview = (await gql(client, IMPACT, id="e8"))["data"]["deletionImpact"]
    facts = (await gql(client, FACTS, u="u-seed"))["data"]["facts"]
    carbon = [f["id"] for f in facts if "碳板" in f["content"]]
    assert preview["removedFacts"] == carbon and preview["keptFacts"] == []
    assert len(preview["rebuiltSummaries"]) == 1
    assert all("碳板" not in text for text in preview["newSummaries"])
    done = (await gql(client, DELETE, id="e8"))["data"]["deleteMessage"]
    assert done["impact"] == preview, "the deletion did exactly what the preview said"
    after = (await gql(client, FACTS, u="u-seed"))["data"]["facts"]
    assert not [f for f in after if "碳板" in f["content"]]
    texts = [s["content"] for s in await active_summaries(client, "u-seed")]
    assert texts and all("碳板" not in t for t in texts)
    # gone everywhere: no node holds the text, full-text finds nothing, recall misses it
    rows = await memory.db.rows("MATCH (n) WHERE n.content CONTAINS '碳板' RETURN count(n) AS n")
    assert rows[0]["n"] == 0
    rows = await memory.db.rows(
        "CALL db.index.fulltext.queryNodes('fact_text', '碳板') YIELD node RETURN count(node) AS n"
    )
    assert rows[0]["n"] == 0
    mem = await gql(
        client,
        """query { memory(userId: "u-seed", query: "碳板竞速鞋") {
        formattedContext } }""",
    )
    assert "碳板" not in mem["data"]["memory"]["formattedContext"]
    log = await gql(client, "query { auditLog { action target ids counts } }")
    entry = log["data"]["auditLog"][0]
    assert entry["action"] == "delete_message" and entry["target"] == "e8"
    assert entry["counts"]["facts"] == 1
    assert "碳板" not in str(entry)


async def test_delete_one_favourite_keeps_light_colour_fact(client: httpx.AsyncClient) -> None:
    await gql(client, ADD, m=seed("zh"))
    facts = (await gql(client, FACTS, u="u-seed"))["data"]["facts"]
    light = next(f for f in facts if "浅色" in f["content"])
    assert {m["id"] for m in light["sourceMessages"]} == {"e5", "e6"}
    preview = (await gql(client, IMPACT, id="e5"))["data"]["deletionImpact"]
    assert preview["removedFacts"] == [] and preview["keptFacts"] == [light["id"]]
    done = (await gql(client, DELETE, id="e5"))["data"]["deleteMessage"]
    assert done["impact"] == preview
    after = (await gql(client, FACTS, u="u-seed"))["data"]["facts"]
    kept = next(f for f in after if f["id"] == light["id"])
    assert [m["id"] for m in kept["sourceMessages"]] == ["e6"]


async def test_deleting_a_correction_restores_the_old_fact(client: httpx.AsyncClient) -> None:
    await gql(client, ADD, m=seed("zh"))
    fix = {
        "id": "fix",
        "userId": "u-seed",
        "sessionId": "s2",
        "role": "user",
        "content": "更正：我的预算现在是 1000 以内",
        "timestamp": "2026-11-30T12:00:00+08:00",
    }
    await gql(client, ADD, m=[fix])
    preview = (await gql(client, IMPACT, id="fix"))["data"]["deletionImpact"]
    assert len(preview["restoredFacts"]) == 1
    await gql(client, DELETE, id="fix")
    texts = [s["content"] for s in await active_summaries(client, "u-seed")]
    assert any("800" in t for t in texts) and not any("1000" in t for t in texts)


async def test_forget_user_leaves_nothing(client: httpx.AsyncClient, memory: Memory) -> None:
    await gql(client, ADD, m=seed("zh"))
    await gql(client, ADD, m=seed("en"))
    r = await gql(client, """mutation { forgetUser(userId: "u-seed") { counts remaining } }""")
    res = r["data"]["forgetUser"]
    assert res["remaining"] == 0 and res["counts"]["Message"] == 10
    assert res["counts"]["Fact"] > 0 and res["counts"]["Summary"] > 0
    rows = await memory.db.rows("MATCH (n) WHERE n.user_id = 'u-seed' RETURN count(n) AS n")
    assert rows[0]["n"] == 0
    mem = await gql(
        client,
        """query { memory(userId: "u-seed", query: "跑鞋") {
        formattedContext shortTermContext { id } midTermContext { id }
        longTermUserContext { id } } }""",
    )
    m = mem["data"]["memory"]
    assert m["formattedContext"] == "" and m["midTermContext"] == []
    assert m["shortTermContext"] == [] and m["longTermUserContext"] == []
    other = (await gql(client, FACTS, u="u-seed-en"))["data"]["facts"]
    assert other, "another user's memory is untouched"


async def test_delete_unknown_message_is_a_typed_error(client: httpx.AsyncClient) -> None:
    r = await gql(client, DELETE, id="nope")
    assert r["errors"][0]["extensions"]["code"] == "NOT_FOUND"
