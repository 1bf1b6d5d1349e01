"""The seed's shoe-shopping example end to end over GraphQL against the real Neo4j:
Facts with their sources, one Summary under "running shoes", and recall on day 2."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.integration.helpers import ADD, gql, seed

FACTS = """query($u: String!) { facts(userId: $u) { id content kind explicit validity slot
  polarity confidence sourceMessages { id eventType } } }"""
TOPICS = """query($u: String!) { topics(userId: $u) { id name summaries { id content
  confidence validity memoryStatus anchors evidence entities { name type }
  sourceFacts { id content explicit sourceMessages { id } } } } }"""
MEMORY = """query($u: String!, $q: String!, $now: DateTime) {
  memory(userId: $u, query: $q, now: $now) { query formattedContext
    midTermContext { id kind content score reason sourceFactIds sourceMessageIds }
    shortTermContext { id } longTermUserContext { id } } }"""
DAY2 = "2026-12-01T10:00:00+08:00"

# (what the spec's fact says, words any of which carry it, the source ids it must cite,
#  explicit?) — for each language
EXPECTED: dict[str, list[tuple[str, tuple[str, ...], set[str], bool]]] = {
    "zh": [
        ("intent", ("慢跑鞋",), {"m1"}, True),
        ("budget", ("800 以内", "800以内"), {"m1"}, True),
        ("price filter", ("500-800",), {"e2"}, False),
        ("size 42", ("42",), {"e3"}, False),
        ("not hard", ("硬",), {"m1"}, True),
        ("cushioned", ("缓震",), {"e4"}, False),
        ("park 5 km", ("公园",), {"m2"}, True),
        ("low-key", ("夸张",), {"m2"}, True),
        ("light colour", ("浅色",), {"e5", "e6"}, False),
        ("not carbon plate", ("碳板",), {"e8"}, False),
    ],
    "en": [
        ("intent", ("jogging shoes",), {"en-m1"}, True),
        ("budget", ("under 800",), {"en-m1"}, True),
        ("price filter", ("500-800",), {"en-e2"}, False),
        ("size 42", ("42",), {"en-e3"}, False),
        ("not hard", ("hard",), {"en-m1"}, True),
        ("cushioned", ("cushioned",), {"en-e4"}, False),
        ("park 5 km", ("park",), {"en-m2"}, True),
        ("low-key", ("flashy",), {"en-m2"}, True),
        ("light colour", ("light",), {"en-e5", "en-e6"}, False),
        ("not carbon plate", ("carbon",), {"en-e8"}, False),
    ],
}
SUMMARY_WORDS = {
    "zh": ["慢跑鞋", "公园", "5 公里", "缓震", "浅色", "800", "42", "大概率", "碳板"],
    "en": [
        "jogging shoes",
        "park",
        "5 km",
        "cushioned",
        "light",
        "800",
        "42",
        "most likely",
        "carbon",
    ],
}
RECALL = {
    "zh": ("昨天看的鞋还有推荐吗？", ["800", "42", "浅色", "缓震", "碳板"]),
    "en": (
        "Any more recommendations for the shoes I looked at yesterday?",
        ["800", "42", "light", "cushioned", "carbon"],
    ),
}


async def ingest(client: httpx.AsyncClient, lang: str) -> str:
    msgs = seed(lang)
    r = await gql(client, ADD, m=msgs)
    res = r["data"]["addMessages"]
    assert res["errors"] == [] and len(res["accepted"]) == len(msgs)
    return str(msgs[0]["userId"])


def find(facts: list[dict[str, Any]], words: tuple[str, ...]) -> list[dict[str, Any]]:
    return [f for f in facts if any(w in f["content"] for w in words)]


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_seed_facts_carry_the_seven_facts(client: httpx.AsyncClient, lang: str) -> None:
    user = await ingest(client, lang)
    facts = (await gql(client, FACTS, u=user))["data"]["facts"]
    for what, words, sources, explicit in EXPECTED[lang]:
        hits = [f for f in find(facts, words) if sources <= {m["id"] for m in f["sourceMessages"]}]
        assert hits, f"{what}: no fact with {words} sourced from {sources}: {facts}"
        assert any(f["explicit"] is explicit for f in hits), (
            f"{what}: explicit should be {explicit}"
        )
        if not explicit:
            assert all(f["confidence"] < 1 for f in hits if not f["explicit"])
    carbon = find(facts, EXPECTED[lang][-1][1])
    assert any(f["polarity"] == "avoids" for f in carbon)


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_seed_gives_one_running_shoes_summary(client: httpx.AsyncClient, lang: str) -> None:
    user = await ingest(client, lang)
    topics = (await gql(client, TOPICS, u=user))["data"]["topics"]
    name = {"zh": "跑鞋", "en": "running shoes"}[lang]  # in its Facts' language (issue 37)
    shoes = [t for t in topics if t["name"] == name]
    assert shoes, [t["name"] for t in topics]
    active = [s for s in shoes[0]["summaries"] if s["validity"] == "active"]
    assert len(active) == 1, active
    summary = active[0]
    for word in SUMMARY_WORDS[lang]:
        assert word in summary["content"], (word, summary["content"])
    assert 0 < summary["confidence"] < 1
    cited = {f["id"] for f in summary["sourceFacts"]}
    facts = (await gql(client, FACTS, u=user))["data"]["facts"]
    assert cited == {f["id"] for f in facts}, "every active fact of the example supports it"
    assert all(f["sourceMessages"] for f in summary["sourceFacts"])


@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_day_two_recall(client: httpx.AsyncClient, lang: str) -> None:
    user = await ingest(client, lang)
    query, words = RECALL[lang]
    r = await gql(client, MEMORY, u=user, q=query, now=DAY2)
    mem = r["data"]["memory"]
    kinds = [i["kind"] for i in mem["midTermContext"]]
    assert kinds and kinds[0] == "summary", mem["midTermContext"]
    text = mem["formattedContext"]
    for word in words:
        assert word in text, (word, text)
    facts = [i for i in mem["midTermContext"] if i["kind"] == "fact"]
    assert facts and all(i["sourceMessageIds"] for i in facts)
    assert set(mem["midTermContext"][0]["sourceFactIds"]) >= {i["id"] for i in facts}
    for i in mem["midTermContext"]:
        assert f"[{i['id']}]" in text, "each line of the context names its id"
