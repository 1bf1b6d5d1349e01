"""Memory formation rules against the real Neo4j: splitting, corrections, decay,
idempotent consolidation."""

from __future__ import annotations

from typing import Any

import httpx

from service.memory import Memory
from tests.integration.helpers import ADD, gql, seed

FACTS = """query($u: String!, $all: Boolean!) { facts(userId: $u, includeInactive: $all) {
  id content validity slot explicit sourceMessages { id } supersededBy { id } } }"""
TOPICS = """query($u: String!) { topics(userId: $u) { name summaries(includeInactive: true) {
  id content validity version supersedes { id validity sourceFacts { id content
  sourceMessages { id } } } sourceFacts { id content } } } }"""


def chat(mid: str, user: str, text: str, ts: str = "2026-11-30T09:00:00+00:00") -> dict[str, Any]:
    return {
        "id": mid,
        "userId": user,
        "sessionId": "s1",
        "role": "user",
        "content": text,
        "timestamp": ts,
    }


async def counts(memory: Memory) -> tuple[int, int]:
    n = await memory.db.rows("MATCH (n) WHERE NOT n:_GumemTestDb RETURN count(n) AS n")
    r = await memory.db.rows("MATCH ()-[r]->() RETURN count(r) AS n")
    return n[0]["n"], r[0]["n"]


async def test_meeting_sentence_gives_three_whole_facts(client: httpx.AsyncClient) -> None:
    cases = [
        (
            "zh",
            "欧洲团队默认 Berlin，美洲团队默认 Toronto，但周五不要安排会议",
            "Berlin",
            "Toronto",
        ),
        (
            "en",
            "The Europe team defaults to Berlin, the Americas team defaults to Toronto, "
            "but don't schedule meetings on Fridays",
            "Berlin",
            "Toronto",
        ),
    ]
    for lang, text, city1, city2 in cases:
        user = f"u-meet-{lang}"
        await gql(client, ADD, m=[chat(f"meet-{lang}", user, text)])
        facts = (await gql(client, FACTS, u=user, all=False))["data"]["facts"]
        assert len(facts) == 3, facts
        eu = [f for f in facts if city1 in f["content"]]
        am = [f for f in facts if city2 in f["content"]]
        assert len(eu) == 1 and len(am) == 1
        assert ("欧洲" in eu[0]["content"]) if lang == "zh" else ("Europe" in eu[0]["content"])
        assert all(f["sourceMessages"] == [{"id": f"meet-{lang}"}] for f in facts)


async def test_greetings_and_thanks_give_no_facts(client: httpx.AsyncClient) -> None:
    msgs = [
        chat("g1", "u-hi", "你好！"),
        chat("g2", "u-hi", "谢谢你"),
        chat("g3", "u-hi", "Hi there!"),
        chat("g4", "u-hi", "Thanks a lot, bye"),
    ]
    r = await gql(client, ADD, m=msgs)
    assert r["data"]["addMessages"]["processed"] == 4
    assert (await gql(client, FACTS, u="u-hi", all=True))["data"]["facts"] == []


async def test_correction_supersedes_and_versions_the_summary(client: httpx.AsyncClient) -> None:
    user = "u-seed"
    await gql(client, ADD, m=seed("zh"))
    fix = chat("m-fix", user, "更正：我的预算现在是 1000 以内", "2026-11-30T12:00:00+08:00")
    fix["sessionId"] = "s-day1b"
    await gql(client, ADD, m=[fix])
    facts = (await gql(client, FACTS, u=user, all=True))["data"]["facts"]
    budget = [f for f in facts if f["slot"] == "budget"]
    old = [f for f in budget if "800" in f["content"]]
    new = [f for f in budget if "1000" in f["content"]]
    assert old and new
    assert old[0]["validity"] == "superseded" and new[0]["validity"] == "active"
    assert old[0]["supersededBy"] == [{"id": new[0]["id"]}]
    topics = (await gql(client, TOPICS, u=user))["data"]["topics"]
    shoes = next(t for t in topics if t["name"] == "跑鞋")  # in its Facts' language
    active = [s for s in shoes["summaries"] if s["validity"] == "active"]
    assert len(active) == 1
    assert "1000" in active[0]["content"] and "800 元以内" not in active[0]["content"]
    prev = active[0]["supersedes"]
    assert prev and prev[0]["validity"] == "deprecated"
    assert any("800" in f["content"] for f in prev[0]["sourceFacts"])
    assert all(f["sourceMessages"] for f in prev[0]["sourceFacts"]), "old version still traceable"


async def test_english_correction(client: httpx.AsyncClient) -> None:
    user = "u-seed-en"
    await gql(client, ADD, m=seed("en"))
    fix = chat("en-fix", user, "Actually my budget is 1000 now", "2026-12-02T12:00:00+08:00")
    fix["sessionId"] = "s-day3"  # another day, another session: still one summary
    await gql(client, ADD, m=[fix])
    facts = (await gql(client, FACTS, u=user, all=True))["data"]["facts"]
    budget = {f["validity"]: f for f in facts if f["slot"] == "budget"}
    assert "1000" in budget["active"]["content"] and "800" in budget["superseded"]["content"]
    topics = (await gql(client, TOPICS, u=user))["data"]["topics"]
    shoes = next(t for t in topics if t["name"] == "running shoes")
    active = [s for s in shoes["summaries"] if s["validity"] == "active"]
    assert len(active) == 1, [s["content"] for s in active]
    assert "1000" in active[0]["content"] and "42" in active[0]["content"]


async def test_reconsolidation_changes_nothing(client: httpx.AsyncClient, memory: Memory) -> None:
    await gql(client, ADD, m=seed("zh"))
    before = await counts(memory)
    assert memory.pipeline is not None
    assert await memory.pipeline.consolidate("tenant-a", "u-seed") == (0, 0)
    await memory.pipeline.process_user("tenant-a", "u-seed")
    again = await gql(client, ADD, m=seed("zh"))
    assert again["data"]["addMessages"]["accepted"] == []
    assert await counts(memory) == before


async def test_decay_deprioritizes_old_shopping_but_not_identity(
    client: httpx.AsyncClient, memory: Memory
) -> None:
    await gql(client, ADD, m=seed("zh"))
    await gql(
        client,
        ADD,
        m=[chat("id1", "u-seed", "我是一名软件工程师，住在上海", "2026-11-30T10:30:00+08:00")],
    )
    r = await gql(
        client,
        """mutation($now: DateTime) { runMaintenance(now: $now) {
        examined deprioritized archived } }""",
        now="2027-02-15T00:00:00+00:00",
    )
    assert r["data"]["runMaintenance"]["examined"] >= 2
    rows = await memory.db.rows(
        "MATCH (s:Summary {user_id: 'u-seed', validity: 'active'}) "
        "RETURN s.kind AS kind, s.memory_status AS status"
    )
    status = {r["kind"]: r["status"] for r in rows}
    assert status["shopping_intent"] in ("deprioritized", "archived")
    assert status["identity"] == "active"


async def test_manual_status_and_boost(client: httpx.AsyncClient) -> None:
    await gql(client, ADD, m=seed("zh"))
    topics = (await gql(client, TOPICS, u="u-seed"))["data"]["topics"]
    sid = next(s["id"] for t in topics for s in t["summaries"] if s["validity"] == "active")
    r = await gql(
        client,
        """mutation($id: ID!) { boostSummary(id: $id, boost: 2.5) {
        retrievalBoost } }""",
        id=sid,
    )
    assert r["data"]["boostSummary"]["retrievalBoost"] == 2.5
    r = await gql(
        client,
        """mutation($id: ID!) { setMemoryStatus(id: $id, status: "archived") {
        memoryStatus } }""",
        id=sid,
    )
    assert r["data"]["setMemoryStatus"]["memoryStatus"] == "archived"
    mem = await gql(
        client,
        """query { memory(userId: "u-seed", query: "跑鞋推荐") {
        midTermContext { id } } }""",
    )
    assert sid not in {i["id"] for i in mem["data"]["memory"]["midTermContext"]}
    bad = await gql(
        client,
        """mutation($id: ID!) { setMemoryStatus(id: $id, status: "gone") {
        id } }""",
        id=sid,
    )
    assert bad["errors"][0]["extensions"]["code"] == "BAD_INPUT"
    assert "status" in bad["errors"][0]["message"]
