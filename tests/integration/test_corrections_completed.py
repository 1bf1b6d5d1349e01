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
    assert [f["validity"] for f in facts if "Fridays" in f["content"]] == ["superseded"]
    assert any("Mondays" in f["content"] for f in active), facts
    assert not any("Fridays" in f["content"] for f in active), facts
    context = (await gql(client, RECALL, u=user, q="When is my pottery class?"))["data"]["memory"][
        "formattedContext"
    ]
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


async def test_a_change_of_one_part_keeps_the_rest(client: httpx.AsyncClient) -> None:
    user = "u-keep-en"
    await _say(
        client,
        msg(
            "k1",
            user,
            "s1",
            "2026-10-01T09:00:00+00:00",
            "I booked a haircut at the Elm Street salon for Saturday at 10am.",
        ),
        msg(
            "k2",
            user,
            "s2",
            "2026-10-02T09:00:00+00:00",
            "Same time, but at the Oak Avenue salon instead.",
        ),
    )
    facts = await _facts(client, user)
    active = [f["content"] for f in facts if f["validity"] == "active"]
    assert "The user booked a haircut at the Oak Avenue salon for Saturday at 10am" in active
    assert [f["validity"] for f in facts if "Elm Street" in f["content"]] == ["superseded"]


async def test_an_updated_quantity_carries_the_other_attributes(client: httpx.AsyncClient) -> None:
    user = "u-qty"
    await _say(
        client,
        msg(
            "n1",
            user,
            "s1",
            "2026-10-01T09:00:00+00:00",
            "I'm looking for a used road bike with a 54 cm frame for under 300 euros.",
        ),
        msg(
            "n2",
            user,
            "s2",
            "2026-10-03T09:00:00+00:00",
            "My budget for the bike is now 400 euros.",
        ),
        msg(
            "n3",
            user,
            "s3",
            "2026-10-01T09:00:00+00:00",
            "我想租一个两室的房子，离地铁近，月租不超过五千。",
        ),
        msg("n4", user, "s4", "2026-10-03T09:00:00+00:00", "月租预算改成六千。"),
    )
    facts = await _facts(client, user)
    active = [f["content"] for f in facts if f["validity"] == "active"]
    assert (
        "The user is looking for a used road bike with a 54 cm frame for under 400 euros" in active
    )
    assert "用户想租一个两室的房子，离地铁近，月租不超过六千" in active, active
    assert not [c for c in active if "300" in c or "五千" in c], active


async def test_a_life_change_retires_the_facts_of_the_thing_it_ends(
    client: httpx.AsyncClient,
) -> None:
    user = "u-ended"
    await _say(
        client,
        msg(
            "x1",
            user,
            "s1",
            "2026-10-01T09:00:00+00:00",
            "I park my car in the garage on Maple Road.",
        ),
        msg("x2", user, "s1", "2026-10-01T09:01:00+00:00", "我家的猫只吃鸡肉味的猫粮。"),
        msg(
            "x3", user, "s1", "2026-10-01T09:02:00+00:00", "I swim at the Lakeside pool on Sundays."
        ),
        msg("x4", user, "s2", "2026-10-20T09:00:00+00:00", "I sold my car last week."),
        msg("x5", user, "s2", "2026-10-20T09:01:00+00:00", "我们家的猫送人了。"),
    )
    facts = await _facts(client, user)
    by_source = {f["content"]: f for f in facts}
    parked = [f for f in facts if "garage" in f["content"]]
    assert [f["validity"] for f in parked] == ["superseded"], facts
    fed = [f for f in facts if "猫粮" in f["content"]]
    assert [f["validity"] for f in fed] == ["superseded"], facts
    assert parked[0]["supersededBy"] and fed[0]["supersededBy"]
    assert [f["validity"] for f in facts if "Lakeside" in f["content"]] == ["active"]
    assert by_source  # the life changes themselves stay active Facts
    assert any(
        "sold" in c and v == "active" for c, v in ((f["content"], f["validity"]) for f in facts)
    )
    context = (await gql(client, RECALL, u=user, q="Where do I park my car?"))["data"]["memory"][
        "formattedContext"
    ]
    assert not current_lines(context, "garage on Maple Road"), context


async def test_a_return_without_a_cue_word_in_one_batch(client: httpx.AsyncClient) -> None:
    """A, then B for A, then "算了，X 还是 A" with no cue word, all in one addMessages."""
    user = "u-flip-zh"
    turns = [
        msg("h1", user, "s1", "2026-10-01T09:00:00+00:00", "家里暖气我打算装燃气壁挂炉。"),
        msg("h2", user, "s1", "2026-10-01T09:01:00+00:00", "想了想还是改成空气能的吧，省电。"),
        msg("h3", user, "s1", "2026-10-01T09:02:00+00:00", "算了，暖气还是装燃气壁挂炉。"),
    ]
    await gql(client, ADD, m=turns)
    facts = await _facts(client, user)
    active = [f for f in facts if f["validity"] == "active"]
    assert not any("空气能" in f["content"] for f in active), facts
    assert any("壁挂炉" in f["content"] for f in active), facts
    context = (await gql(client, RECALL, u=user, q="帮我约暖气安装"))["data"]["memory"][
        "formattedContext"
    ]
    assert not current_lines(context, "空气能"), context


async def test_a_keep_phrase_first_and_a_new_place_carry_the_rest(
    client: httpx.AsyncClient,
) -> None:
    user = "u-keep-first"
    await _say(
        client,
        msg(
            "k1", user, "s1", "2026-10-01T09:00:00+00:00",
            "My choir rehearsal is on Mondays at 6pm at the Elm Street hall, with Nadia.",
        ),
        msg(
            "k2", user, "s2", "2026-10-08T09:00:00+00:00",
            "Same time, but rehearsal moves to Harbour Park from next week.",
        ),
    )  # fmt: skip
    active = [f for f in await _facts(client, user) if f["validity"] == "active"]
    assert any(
        "Harbour Park" in f["content"] and "Mondays" in f["content"] and "Nadia" in f["content"]
        for f in active
    ), active
    assert not any("Elm Street" in f["content"] for f in active), active


async def test_no_pets_any_more_retires_what_the_pet_needed(client: httpx.AsyncClient) -> None:
    user = "u-no-pets"
    await _say(
        client,
        msg("r1", user, "s1", "2026-10-01T09:00:00+00:00", "我家仓鼠豆豆只吃无糖的磨牙棒。"),
        msg("r2", user, "s2", "2026-10-20T09:00:00+00:00", "豆豆上周走了，现在家里没有宠物了。"),
    )
    facts = await _facts(client, user)
    assert [f["validity"] for f in facts if "磨牙棒" in f["content"]] == ["superseded"], facts
