"""A short answer binds to the assistant's question before it, on the real Neo4j: the Fact
takes the question's frame, cites both turns (the question as `context`), and a related
recall in another session finds it; the assistant turn is never ranked as the user's."""

from __future__ import annotations

from typing import Any

import httpx

from service.erasure import delete_message
from service.memory import Memory
from tests.integration.helpers import ADD, gql

FACTS = """query($u: String!) { facts(userId: $u) {
  id content sourceMessageIds sourceMessages { id role } } }"""
RECALL = """query($u: String!, $q: String!, $s: String) {
  memory(userId: $u, query: $q, sessionId: $s) { formattedContext
    shortTermContext { id kind content sourceMessageIds }
    midTermContext { id kind content sourceMessageIds }
    longTermUserContext { id kind content sourceMessageIds } } }"""


def turn(mid: str, user: str, role: str, ts: str, text: str) -> dict[str, Any]:
    return {
        "id": mid,
        "userId": user,
        "sessionId": "s1",
        "role": role,
        "content": text,
        "timestamp": ts,
    }


async def _context_sources(memory: Memory, fact_id: str) -> dict[str, bool]:
    rows = await memory.db.rows(
        "MATCH (:Fact {fact_id: $id})-[r:SOURCE]->(m:Message) "
        "RETURN m.message_id AS id, coalesce(r.context, false) AS context",
        id=fact_id,
    )
    return {r["id"]: r["context"] for r in rows}


def _ranked(recall: dict[str, Any]) -> list[dict[str, Any]]:
    return [*recall["midTermContext"], *recall["longTermUserContext"]]


async def test_answers_bind_to_their_questions(client: httpx.AsyncClient, memory: Memory) -> None:
    user = "u-answers"
    turns = [
        turn(
            "q1", user, "assistant", "2026-09-01T08:00:00+00:00", "好的。您希望露营地离湖边多远？"
        ),
        turn("a1", user, "user", "2026-09-01T08:00:30+00:00", "开车半小时以内吧"),
        turn(
            "q2",
            user,
            "assistant",
            "2026-09-01T08:01:00+00:00",
            "Should I add extra legroom seats to your train bookings?",
        ),
        turn("a2", user, "user", "2026-09-01T08:01:30+00:00", "Yes, always."),
        turn("q3", user, "assistant", "2026-09-01T08:02:00+00:00", "You're a vegan, right?"),
        turn("a3", user, "user", "2026-09-01T08:02:30+00:00", "not really"),
    ]
    body = await gql(client, ADD, m=turns)
    assert body["data"]["addMessages"]["processed"] == 6, body

    facts = (await gql(client, FACTS, u=user))["data"]["facts"]
    by_answer = {s: f for f in facts for s in f["sourceMessageIds"] if s in ("a1", "a2", "a3")}
    camp = by_answer["a1"]
    assert all(w in camp["content"] for w in ("露营地", "湖边", "半小时")), camp
    assert "吧" not in camp["content"]
    assert set(camp["sourceMessageIds"]) == {"a1", "q1"}
    assert {m["id"]: m["role"] for m in camp["sourceMessages"]} == {"a1": "user", "q1": "assistant"}
    assert await _context_sources(memory, camp["id"]) == {"a1": False, "q1": True}
    seats = by_answer["a2"]
    assert "always" in seats["content"] and "legroom" in seats["content"], seats
    assert set(seats["sourceMessageIds"]) == {"a2", "q2"}
    assert "a3" not in by_answer  # a refusal stores nothing of the guess
    assert not [f for f in facts if "vegan" in f["content"]]

    recall = (await gql(client, RECALL, u=user, q="Book my train tickets to Lyon", s="s2"))["data"][
        "memory"
    ]
    assert "legroom" in recall["formattedContext"], recall["formattedContext"]
    assert any(i["id"] == seats["id"] for i in _ranked(recall)), _ranked(recall)
    camp_recall = (await gql(client, RECALL, u=user, q="帮我找个露营地", s="s2"))["data"]["memory"]
    assert "半小时" in camp_recall["formattedContext"], camp_recall["formattedContext"]
    for r in (recall, camp_recall):  # the assistant's turns are context, never the user's memory
        ranked = {i["id"] for i in _ranked(r) if i["kind"] == "message"}
        assert not ranked & {"q1", "q2", "q3"}, ranked

    # without the user's answer the question alone keeps no Fact
    await delete_message(memory, "tenant-a", "a1")
    left = (await gql(client, FACTS, u=user))["data"]["facts"]
    assert not [f for f in left if f["id"] == camp["id"]], left
    assert [f for f in left if f["id"] == seats["id"]]
