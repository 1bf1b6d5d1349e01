"""Corrections, completed (issue 37, item 4), against the real Neo4j: going back to an
earlier value, and a change in the user's life that retires the Facts it ends."""

from __future__ import annotations

from typing import Any

import httpx

from tests.integration.helpers import ADD, gql
from tests.integration.test_corrections import FACTS, RECALL, current_lines, msg


async def _facts(client: httpx.AsyncClient, user: str) -> list[dict[str, Any]]:
    return list((await gql(client, FACTS, u=user))["data"]["facts"])


async def _say(client: httpx.AsyncClient, *turns: dict[str, Any]) -> None:
    for turn in turns:  # one batch each: every turn is a later Message
        await gql(client, ADD, m=[turn])


async def test_back_to_an_earlier_value_in_english(client: httpx.AsyncClient) -> None:
    user = "u-back-en"
    await _say(
        client,
        msg("p1", user, "s1", "2026-10-01T09:00:00+00:00", "My pottery class is on Mondays."),
        msg("p2", user, "s2", "2026-10-08T09:00:00+00:00", "My pottery class moved to Fridays."),
        msg("p3", user, "s3", "2026-10-15T09:00:00+00:00", "Pottery went back to Mondays."),
    )
    facts = await _facts(client, user)
    active = [f for f in facts if f["validity"] == "active"]
    assert [f for f in facts if "Fridays" in f["content"]][0]["validity"] == "superseded"
    assert any("Mondays" in f["content"] for f in active), facts
    assert not any("Fridays" in f["content"] for f in active), facts
    context = (await gql(client, RECALL, u=user, q="When is my pottery class?"))["data"][
        "memory"
    ]["formattedContext"]
    assert not current_lines(context, "Fridays"), context


async def test_back_to_an_earlier_value_in_chinese_restores_its_wording(
    client: httpx.AsyncClient, memory: Any
) -> None:
    user = "u-back-zh"
    await _say(
        client,
        msg("q1", user, "s1", "2026-10-01T09:00:00+00:00", "我的拳击课在每周二晚上。"),
        msg("q2", user, "s2", "2026-10-08T09:00:00+00:00", "拳击课改到周四晚上了。"),
        msg("q3", user, "s3", "2026-10-15T09:00:00+00:00", "拳击课还是改回周二吧。"),
    )
    facts = await _facts(client, user)
    active = [f for f in facts if f["validity"] == "active"]
    assert len(active) == 1, facts
    assert active[0]["content"] == "用户的拳击课在每周二晚上"  # worded as the value it restores
    thursday = [f for f in facts if "周四" in f["content"]]
    assert [f["validity"] for f in thursday] == ["superseded"]
    assert thursday[0]["supersededBy"] == [{"id": active[0]["id"]}]
    rows = await memory.db.rows(
        "MATCH (f:Fact {fact_id: $id})-[:SOURCE]->(m:Message) RETURN collect(m.message_id) AS ids",
        id=active[0]["id"],
    )
    assert rows[0]["ids"] == ["q3"]  # a new Fact, citing the new Message
