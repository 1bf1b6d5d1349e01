"""Implicit conflicts against the real Neo4j: a correction supersedes an older Fact that
has no slot in common (SUPERSEDES, valid_to), and similarity alone never does."""

from __future__ import annotations

import httpx

from service.memory import Memory
from tests.integration.helpers import ADD, gql
from tests.integration.test_corrections import FACTS, RECALL, current_lines, msg


async def test_switched_to_supersedes_the_older_slotless_fact(
    client: httpx.AsyncClient, memory: Memory
) -> None:
    user = "u-gym"
    await gql(
        client,
        ADD,
        m=[
            msg("g1", user, "s1", "2026-03-02T09:00:00+00:00", "I train at PureGym Camden."),
            msg("g2", user, "s1", "2026-03-02T09:01:00+00:00", "I do yoga on Wednesdays."),
        ],
    )
    facts = (await gql(client, FACTS, u=user))["data"]["facts"]
    assert all(f["slot"] is None and f["validity"] == "active" for f in facts), facts
    fix = "I switched to Third Space Soho this month."
    await gql(client, ADD, m=[msg("g3", user, "s2", "2026-03-09T18:00:00+00:00", fix)])

    facts = (await gql(client, FACTS, u=user))["data"]["facts"]
    old = [f for f in facts if "PureGym" in f["content"]]
    new = [f for f in facts if "Third Space" in f["content"]]
    yoga = [f for f in facts if "yoga" in f["content"]]
    assert len(old) == 1 and len(new) == 1 and len(yoga) == 1, facts
    assert old[0]["validity"] == "superseded" and new[0]["validity"] == "active"
    assert old[0]["supersededBy"] == [{"id": new[0]["id"]}]
    assert yoga[0]["validity"] == "active"  # near, but no other value on its matter
    rows = await memory.db.rows(
        "MATCH (n:Fact {fact_id: $new})-[:SUPERSEDES]->(o:Fact {fact_id: $old}) "
        "RETURN o.valid_to AS valid_to, n.valid_from AS valid_from",
        new=new[0]["id"],
        old=old[0]["id"],
    )
    assert len(rows) == 1 and rows[0]["valid_to"] == rows[0]["valid_from"]


async def test_without_a_cue_a_near_fact_stays_active(client: httpx.AsyncClient) -> None:
    user = "u-gym-also"
    await gql(
        client,
        ADD,
        m=[
            msg("a1", user, "s1", "2026-03-02T09:00:00+00:00", "I train at PureGym Camden."),
            msg("a2", user, "s2", "2026-03-09T09:00:00+00:00", "I also swim at Oasis Holborn."),
        ],
    )
    facts = (await gql(client, FACTS, u=user))["data"]["facts"]
    assert facts and all(f["validity"] == "active" for f in facts), facts


async def test_a_chinese_change_in_one_batch_supersedes(client: httpx.AsyncClient) -> None:
    user = "u-zh-tool"
    await gql(
        client,
        ADD,
        m=[
            msg("z1", user, "s1", "2026-03-02T09:00:00+00:00", "我们组的任务都放在 Trello 上。"),
            msg("z2", user, "s1", "2026-03-02T09:01:00+00:00", "我每周三晚上练瑜伽。"),
            msg("z3", user, "s2", "2026-03-20T09:00:00+00:00", "任务管理工具改了，换成 Asana 了。"),
        ],
    )
    facts = (await gql(client, FACTS, u=user))["data"]["facts"]
    old = [f["content"] for f in facts if f["validity"] == "superseded"]
    active = [f["content"] for f in facts if f["validity"] == "active"]
    assert len(old) == 1 and "Trello" in old[0], facts
    assert any("Asana" in c for c in active) and any("瑜伽" in c for c in active), facts


async def test_a_change_of_attribute_supersedes_exactly_its_fact(
    client: httpx.AsyncClient,
) -> None:
    """ "宽带那边我换了，现在用 Y": the older broadband Fact is superseded, the allergy of the
    same session stays, and recall shows only the new value as current."""
    user = "u-zh-broadband"
    await gql(
        client,
        ADD,
        m=[
            msg("b1", user, "s1", "2026-05-02T09:00:00+00:00", "家里宽带一直用的是长城宽带。"),
            msg(
                "b2",
                user,
                "s1",
                "2026-05-02T09:01:00+00:00",
                "我对尘螨过敏，上门装机的师傅要穿鞋套。",
            ),
        ],
    )
    await gql(
        client,
        ADD,
        m=[
            msg("b3", user, "s2", "2026-06-10T20:00:00+00:00", "宽带那边我换了，现在用鹏博士宽带。")
        ],
    )
    facts = (await gql(client, FACTS, u=user))["data"]["facts"]
    old = [f for f in facts if "长城" in f["content"]]
    new = [f for f in facts if "鹏博士" in f["content"]]
    allergy = [f for f in facts if "尘螨" in f["content"]]
    assert len(old) == 1 and old[0]["validity"] == "superseded", facts
    assert len(new) == 1 and new[0]["validity"] == "active", facts
    assert old[0]["supersededBy"] == [{"id": new[0]["id"]}]
    assert allergy and all(f["validity"] == "active" for f in allergy), facts
    superseded = [f for f in facts if f["validity"] == "superseded"]
    assert len(superseded) == 1, facts  # only that one
    ctx = (await gql(client, RECALL, u=user, q="家里宽带是哪家的？"))["data"]["memory"]
    text = ctx["formattedContext"]
    assert "鹏博士" in text
    assert not current_lines(text, "长城"), text
