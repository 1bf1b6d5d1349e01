"""The dialogues of issue 16 over GraphQL against the real Neo4j: the laptop purchase (one
active budget superseding the old one, one Topic, no third party's preference, recall led by
the purchase Summary) and the Chinese items (a correction cue never kept, chit-chat never a
Fact or a Topic)."""

from __future__ import annotations

from typing import Any

import httpx

from tests.integration.helpers import ADD, gql
from tests.integration.test_corrections import current_lines, msg

FACTS = """query($u: String!) { facts(userId: $u, includeInactive: true) {
  id content kind validity slot topic supersededBy { id } } }"""
TOPICS = """query($u: String!) { topics(userId: $u) { name factCount
  summaries { content } } }"""
RECALL = """query($u: String!, $q: String!, $s: String, $asOf: DateTime) {
  memory(userId: $u, query: $q, sessionId: $s, asOf: $asOf) { formattedContext
    midTermContext { id kind content } } }"""


Q = "What laptops should I recommend to this user?"


def event(mid: str, user: str, session: str, ts: str, kind: str, text: str, **meta: Any) -> Any:
    return msg(mid, user, session, ts, text, role="event", eventType=kind, metadata=meta)


def laptop(user: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """m1..m6 on day one, m7 and m8 the next day in a new session (as in the issue)."""
    day1 = [
        msg(
            "m1",
            user,
            "s1",
            "2026-11-02T10:00:00+00:00",
            "I'm looking for a laptop for video editing, ideally 14 inch, under 2000 dollars. "
            "My old one was a MacBook Air but it overheats.",
        ),
        msg(
            "m2",
            user,
            "s1",
            "2026-11-02T10:01:00+00:00",
            "Would you consider a Dell XPS 14?",
            role="assistant",
        ),
        msg(
            "m3",
            user,
            "s1",
            "2026-11-02T10:02:00+00:00",
            "Maybe. My sister loves her ThinkPad but I hate the trackpoint.",
        ),
        event(
            "m4",
            user,
            "s1",
            "2026-11-02T10:03:00+00:00",
            "filter",
            "filter: RAM = 32GB",
            field="RAM",
            value="32GB",
        ),
        event(
            "m5",
            user,
            "s1",
            "2026-11-02T10:04:00+00:00",
            "filter",
            "filter: RAM = 32GB",
            field="RAM",
            value="32GB",
        ),
        event(
            "m6",
            user,
            "s1",
            "2026-11-02T10:05:00+00:00",
            "click",
            "click: Acer Swift Go 14",
            item="Acer Swift Go 14",
        ),
    ]
    day2 = [
        msg(
            "m7",
            user,
            "s2",
            "2026-11-03T09:00:00+00:00",
            "Actually my budget is now 2500 since I got a bonus.",
        ),
        msg(
            "m8",
            user,
            "s2",
            "2026-11-03T09:01:00+00:00",
            "Also I work from Berlin, so I need a German keyboard layout.",
        ),
    ]
    return day1, day2


async def test_laptop_dialogue(client: httpx.AsyncClient) -> None:
    user = "u-laptop"
    day1, day2 = laptop(user)
    for batch in (day1, day2):
        r = await gql(client, ADD, m=batch)
        assert r["data"]["addMessages"]["errors"] == [], r
    facts = (await gql(client, FACTS, u=user))["data"]["facts"]
    active = [f for f in facts if f["validity"] == "active"]

    import json

    print("DBG", json.dumps(facts, indent=1))
    print("DBG", json.dumps((await gql(client, TOPICS, u=user))["data"], indent=1))
    budget = [f for f in facts if f["slot"] == "budget"]
    now = [f for f in budget if f["validity"] == "active"]
    old = [f for f in budget if f["validity"] == "superseded"]
    assert len(now) == 1 and "2500" in now[0]["content"], budget
    assert len(old) == 1 and "2000" in old[0]["content"], budget
    assert old[0]["supersededBy"] == [{"id": now[0]["id"]}]
    assert not current_lines("\n".join(f["content"] for f in active), "2000"), active

    # the sister's ThinkPad is not the user's preference
    mine = [f for f in active if f["kind"] in ("preference", "identity")]
    assert not [f for f in mine if "sister" in f["content"] or "ThinkPad" in f["content"]], mine

    # one Topic for the purchase: every fact about it (budget, RAM, screen, keyboard) in it
    about = [
        f for f in active if any(w in f["content"] for w in ("2500", "32GB", "14 inch", "German"))
    ]
    assert {f["topic"] for f in about} == {about[0]["topic"]}, about
    topics = (await gql(client, TOPICS, u=user))["data"]["topics"]
    purchase = [t for t in topics if t["name"] == about[0]["topic"]]
    assert len(purchase) == 1, topics

    r = await gql(client, RECALL, u=user, q=Q)
    mid = r["data"]["memory"]["midTermContext"]
    lead = mid[0]
    assert lead["kind"] == "summary", mid
    for value in ("2500", "32GB", "14 inch", "German"):
        assert value in lead["content"], lead
    assert "2000" not in lead["content"], lead
    context = r["data"]["memory"]["formattedContext"]
    assert not current_lines(context, "2000"), context

    # as it stood on the evening of day one: the old budget is current, the new one unknown
    r = await gql(client, RECALL, u=user, q=Q, asOf="2026-11-02T20:00:00+00:00")
    then = r["data"]["memory"]
    assert then["midTermContext"][0]["kind"] == "summary", then
    assert "2000" in then["midTermContext"][0]["content"], then
    assert current_lines(then["formattedContext"], "2000"), then
    assert "2500" not in then["formattedContext"] and "German" not in then["formattedContext"]


async def test_chinese_correction_cue_and_superseded_city(client: httpx.AsyncClient) -> None:
    user = "u-zh-eu"
    first = msg("e1", user, "s1", "2026-11-02T09:00:00+08:00", "欧洲团队默认 Berlin")
    fix = msg("e2", user, "s2", "2026-11-04T09:00:00+08:00", "更正一下：欧洲团队以后默认 Paris")
    await gql(client, ADD, m=[first])
    await gql(client, ADD, m=[fix])
    facts = (await gql(client, FACTS, u=user))["data"]["facts"]
    active = [f for f in facts if f["validity"] == "active"]
    assert [f["content"] for f in active] == ["欧洲团队默认 Paris"], facts
    assert not [f for f in facts if "一下" in f["content"]], facts
    assert [f["validity"] for f in facts if "Berlin" in f["content"]] == ["superseded"]
    for session in ("s1", "s2", None):
        r = await gql(client, RECALL, u=user, q="欧洲团队的默认城市", s=session)
        context = r["data"]["memory"]["formattedContext"]
        assert "Paris" in context, context
        assert not current_lines(context, "Berlin"), context


async def test_chinese_chit_chat_is_no_memory(client: httpx.AsyncClient) -> None:
    user = "u-zh-chat"
    r = await gql(
        client, ADD, m=[msg("w1", user, "s1", "2026-11-02T09:00:00+08:00", "今天天气不错")]
    )
    assert r["data"]["addMessages"]["accepted"] == ["w1"]
    assert (await gql(client, FACTS, u=user))["data"]["facts"] == []
    assert (await gql(client, TOPICS, u=user))["data"]["topics"] == []
