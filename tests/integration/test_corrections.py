"""Corrections across sessions against the real Neo4j: SUPERSEDES, valid_from/valid_to,
rebuilt Summaries, and recall that never presents a superseded value as current."""

from __future__ import annotations

from typing import Any

import httpx

from service.memory import Memory
from tests.integration.helpers import ADD, gql

FACTS = """query($u: String!) { facts(userId: $u, includeInactive: true) {
  id content validity slot supersededBy { id } } }"""
TOPICS = """query($u: String!) { topics(userId: $u) { name
  summaries(includeInactive: true) { content validity } } }"""
RECALL = """query($u: String!, $q: String!, $s: String) {
  memory(userId: $u, query: $q, sessionId: $s) { formattedContext } }"""


def msg(mid: str, user: str, session: str, ts: str, text: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": mid,
        "userId": user,
        "sessionId": session,
        "role": "user",
        "content": text,
        "timestamp": ts,
        **extra,
    }


def current_lines(context: str, needle: str) -> list[str]:
    """Lines that show `needle` without saying it was superseded."""
    return [
        ln
        for ln in context.splitlines()
        if needle in ln and "superseded" not in ln and "已更正" not in ln
    ]


async def test_budget_correction_next_day_supersedes_everywhere(
    client: httpx.AsyncClient, memory: Memory
) -> None:
    user = "u-tablet"
    day1 = [
        msg(
            "t1",
            user,
            "s1",
            "2026-10-05T09:00:00+00:00",
            "I'm shopping for a drawing tablet for illustration, ideally 13 inch, under 900 euros.",
        ),
        {**msg("t2", user, "s1", "2026-10-05T09:01:00+00:00", "Would a Wacom One suit you?")}
        | {"role": "assistant"},
        msg(
            "t3",
            user,
            "s1",
            "2026-10-05T09:02:00+00:00",
            "My cousin adores her iPad but I dislike glossy screens.",
        ),
    ]
    await gql(client, ADD, m=day1)
    fix = msg(
        "t4",
        user,
        "s2",
        "2026-10-06T18:00:00+00:00",
        "Actually my budget is now 1200 euros since my client paid early.",
    )
    await gql(client, ADD, m=[fix])

    facts = (await gql(client, FACTS, u=user))["data"]["facts"]
    budget = [f for f in facts if f["slot"] == "budget"]
    old = [f for f in budget if "900" in f["content"]]
    new = [f for f in budget if "1200" in f["content"]]
    assert len(old) == 1 and len(new) == 1, budget
    assert old[0]["validity"] == "superseded" and new[0]["validity"] == "active"
    assert old[0]["supersededBy"] == [{"id": new[0]["id"]}]
    assert not [f for f in facts if "iPad" in f["content"] or "cousin" in f["content"]]

    rows = await memory.db.rows(
        "MATCH (n:Fact {fact_id: $new})-[:SUPERSEDES]->(o:Fact {fact_id: $old}) "
        "RETURN o.valid_to AS valid_to, n.valid_from AS valid_from, o.valid_from AS old_from",
        new=new[0]["id"],
        old=old[0]["id"],
    )
    assert len(rows) == 1
    valid_to, valid_from, old_from = rows[0]["valid_to"], rows[0]["valid_from"], rows[0]["old_from"]
    assert valid_to is not None and valid_to == valid_from  # the correcting message's time
    assert old_from.to_native().day == 5 and valid_from.to_native().day == 6

    topics = (await gql(client, TOPICS, u=user))["data"]["topics"]
    active = [s["content"] for t in topics for s in t["summaries"] if s["validity"] == "active"]
    assert any("1200" in s for s in active), active
    assert not any("900" in s for s in active), active

    context = (await gql(client, RECALL, u=user, q="What tablet should I recommend?", s="s1"))[
        "data"
    ]["memory"]["formattedContext"]
    assert "1200" in context
    assert not current_lines(context, "900"), context
    assert "superseded by" in context  # the raw day-one message is shown, marked


async def test_chinese_correction_strips_the_cue_and_marks_the_old_message(
    client: httpx.AsyncClient,
) -> None:
    user = "u-zh-fix"
    first = msg("z1", user, "s1", "2026-10-05T09:00:00+00:00", "亚太团队默认 Singapore")
    fix = msg("z2", user, "s2", "2026-10-07T09:00:00+00:00", "更正一下：亚太团队以后默认 Tokyo")
    await gql(client, ADD, m=[first])
    await gql(client, ADD, m=[fix])
    facts = (await gql(client, FACTS, u=user))["data"]["facts"]
    active = [f for f in facts if f["validity"] == "active"]
    assert [f["content"] for f in active] == ["亚太团队默认 Tokyo"]
    assert [f["validity"] for f in facts if "Singapore" in f["content"]] == ["superseded"]
    context = (await gql(client, RECALL, u=user, q="亚太团队的默认城市", s="s1"))["data"]["memory"][
        "formattedContext"
    ]
    assert "Tokyo" in context
    assert not current_lines(context, "Singapore"), context


async def test_no_longer_retracts_an_older_fact_without_a_slot(client: httpx.AsyncClient) -> None:
    user = "u-retract"
    await gql(
        client,
        ADD,
        m=[
            msg(
                "r1",
                user,
                "s1",
                "2026-10-01T09:00:00+00:00",
                "I sing in the Camden gospel choir on Thursday evenings.",
            )
        ],
    )
    await gql(
        client,
        ADD,
        m=[
            msg(
                "r2",
                user,
                "s2",
                "2026-10-20T09:00:00+00:00",
                "I'm no longer in the gospel choir, my knee needs rest.",
            )
        ],
    )
    facts = (await gql(client, FACTS, u=user))["data"]["facts"]
    old = [f for f in facts if "Camden" in f["content"]]
    assert [f["validity"] for f in old] == ["superseded"]
    assert old[0]["supersededBy"]
