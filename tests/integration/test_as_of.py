"""Recall `asOf` against the real Neo4j: what was known at a time. Messages up to it, the
Facts valid at it (a Fact superseded later is current then), the Summary version built from
those Facts only, and no memory at all before the first Message."""

from __future__ import annotations

from typing import Any

import httpx

from core.errors import InputError
from service.memory import Memory
from tests.integration.helpers import ADD, gql
from tests.integration.test_corrections import current_lines, msg

RECALL = """query($u: String!, $q: String!, $s: String, $asOf: DateTime) {
  memory(userId: $u, query: $q, sessionId: $s, asOf: $asOf) { formattedContext
    shortTermContext { id } midTermContext { id kind content }
    longTermUserContext { id } } }"""
FACTS = """query($u: String!, $asOf: DateTime) { facts(userId: $u, asOf: $asOf) {
  id content validity } }"""

USER = "u-asof"
DAY1 = [
    msg(
        "a1",
        USER,
        "s1",
        "2026-10-05T09:00:00+00:00",
        "I'm shopping for a drawing tablet for illustration, ideally 13 inch, under 900 euros.",
    ),
    msg(
        "a2",
        USER,
        "s1",
        "2026-10-05T09:02:00+00:00",
        "I dislike glossy screens.",
    ),
]
FIX = msg(
    "a3",
    USER,
    "s2",
    "2026-10-06T18:00:00+00:00",
    "Actually my budget is now 1200 euros since my client paid early.",
)
BEFORE_FIX = "2026-10-06T12:00:00+02:00"
AFTER_FIX = "2026-10-07T09:00:00+00:00"
BEFORE_ALL = "2026-10-04T23:00:00+00:00"
Q = "What tablet should I recommend?"


async def recall(client: httpx.AsyncClient, as_of: str | None, **kw: Any) -> dict[str, Any]:
    r = await gql(client, RECALL, u=kw.pop("u", USER), q=kw.pop("q", Q), asOf=as_of, **kw)
    assert "errors" not in r, r
    out: dict[str, Any] = r["data"]["memory"]
    return out


async def test_as_of_before_and_after_a_correction(
    client: httpx.AsyncClient, memory: Memory
) -> None:
    await gql(client, ADD, m=DAY1)  # processed on its own: a day-one Summary version
    await gql(client, ADD, m=[FIX])

    now = await recall(client, None)
    assert "1200" in now["formattedContext"]
    assert not current_lines(now["formattedContext"], "900")

    then = await recall(client, BEFORE_FIX)
    context = then["formattedContext"]
    assert "1200" not in context, context
    assert current_lines(context, "900"), context  # the old budget, shown as current then
    lead = then["midTermContext"][0]
    assert lead["kind"] == "summary" and "900" in lead["content"], then
    rows = await memory.db.rows(
        "MATCH (s:Summary {summary_id: $id}) RETURN s.validity AS v", id=lead["id"]
    )
    assert rows == [{"v": "deprecated"}]  # the version that was current then

    later = await recall(client, AFTER_FIX)
    assert "1200" in later["formattedContext"]
    assert not current_lines(later["formattedContext"], "900"), later
    assert later["formattedContext"] == now["formattedContext"]

    # the recent conversation of a session stops at asOf too
    s2 = await recall(client, BEFORE_FIX, s="s2")
    assert s2["shortTermContext"] == []
    s1 = await recall(client, BEFORE_FIX, s="s1")
    assert {i["id"] for i in s1["shortTermContext"]} == {"a1", "a2"}

    # the facts list takes the same asOf
    old = (await gql(client, FACTS, u=USER, asOf=BEFORE_FIX))["data"]["facts"]
    assert any("900" in f["content"] and f["validity"] == "superseded" for f in old), old
    assert not any("1200" in f["content"] for f in old), old
    new = (await gql(client, FACTS, u=USER, asOf=AFTER_FIX))["data"]["facts"]
    assert any("1200" in f["content"] for f in new) and not any("900" in f["content"] for f in new)


async def test_as_of_before_the_first_message_is_no_memory(client: httpx.AsyncClient) -> None:
    await gql(client, ADD, m=[*DAY1, FIX])
    for session in (None, "s1"):
        empty = await recall(client, BEFORE_ALL, s=session)
        assert empty["formattedContext"] == "", empty
        assert empty["shortTermContext"] == empty["midTermContext"] == []
        assert empty["longTermUserContext"] == []
    assert (await gql(client, FACTS, u=USER, asOf=BEFORE_ALL))["data"]["facts"] == []


async def test_as_of_without_an_old_summary_version_shows_the_facts_then(
    client: httpx.AsyncClient,
) -> None:
    """Both days processed together: no Summary version ever held the old budget, so asOf
    before the correction shows no Summary with the new one, only the Facts valid then."""
    await gql(client, ADD, m=[*DAY1, FIX])
    then = await recall(client, BEFORE_FIX)
    context = then["formattedContext"]
    assert "1200" not in context, context
    assert current_lines(context, "900"), context
    assert all(i["kind"] != "summary" for i in then["midTermContext"]), then


async def test_as_of_must_carry_a_time_zone(client: httpx.AsyncClient, memory: Memory) -> None:
    r = await gql(client, RECALL, u=USER, q=Q, asOf="2026-10-06T12:00:00")
    assert r["data"] is None and "asOf" in r["errors"][0]["message"], r
    r = await gql(client, FACTS, u=USER, asOf="2026-10-06T12:00:00")
    assert r["data"] is None and "asOf" in r["errors"][0]["message"], r
    from datetime import datetime

    try:
        await memory.recall("tenant-a", USER, Q, as_of=datetime(2026, 10, 6, 12))
    except InputError as e:
        assert e.field == "asOf"
    else:
        raise AssertionError("a naive asOf was accepted")


async def test_as_of_after_the_correction_is_deleted(client: httpx.AsyncClient) -> None:
    """Deleting the correcting Message restores the old Fact: it is valid again at every
    time since its Message, asOf after the (deleted) correction included."""
    await gql(client, ADD, m=DAY1)
    await gql(client, ADD, m=[FIX])
    r = await gql(client, 'mutation { deleteMessage(id: "a3") { counts } }')
    assert "errors" not in r, r
    later = await recall(client, AFTER_FIX)
    context = later["formattedContext"]
    assert "1200" not in context and current_lines(context, "900"), context
    facts = (await gql(client, FACTS, u=USER, asOf=AFTER_FIX))["data"]["facts"]
    assert [f["validity"] for f in facts if "900" in f["content"]] == ["active"], facts
