"""The LangChain adapters (gumem.adapters.langchain) against a real uvicorn + Neo4j."""

from __future__ import annotations

import asyncio
from datetime import datetime

from langchain_core.messages import AIMessage, HumanMessage

from gumem.adapters.langchain import GumemChatMessageHistory, GumemRetriever
from gumem.client import AsyncClient, Client
from tests.integration.helpers import seed
from tests.integration.test_http import server  # noqa: F401 - the fixture

DAY2 = datetime.fromisoformat("2026-12-01T10:00:00+08:00")


async def test_retriever_sync_and_async(server: str) -> None:  # noqa: F811
    async with AsyncClient(server, "key-a", timeout_s=600) as c:
        assert len((await c.add_messages(seed("en"))).accepted) == 10
    r = GumemRetriever(url=server, key="key-a", user_id="u-seed-en", now=DAY2)
    q = "Any more recommendations for the shoes I looked at yesterday?"
    docs = await asyncio.to_thread(r.invoke, q)
    summary = next(d for d in docs if d.metadata["kind"] == "summary")
    assert "carbon" in summary.page_content and summary.metadata["source_fact_ids"]
    assert summary.id == summary.metadata["id"]
    adocs = await r.ainvoke(q)
    assert [d.metadata["id"] for d in adocs] == [d.metadata["id"] for d in docs]
    other = GumemRetriever(url=server, key="key-b", user_id="u-seed-en", now=DAY2)
    assert await other.ainvoke(q) == []
    await r.aclose()  # each keeps one HTTP client (pool) for its calls
    await other.aclose()


def test_chat_history_keeps_a_session(server: str) -> None:  # noqa: F811
    h = GumemChatMessageHistory("u-lc-hist", "s1", url=server, key="key-a")
    h.add_user_message("I'm vegetarian and allergic to peanuts.")
    h.add_ai_message("Noted. Any cuisine you like?")
    h.add_user_message("yes")
    h.add_user_message("yes")  # a repeated turn is a new turn, not a duplicate
    other = GumemChatMessageHistory("u-lc-hist", "s2", url=server, key="key-a")
    other.add_user_message("Something else entirely.")
    got = h.messages
    assert [(type(m).__name__, m.content) for m in got] == [
        ("HumanMessage", "I'm vegetarian and allergic to peanuts."),
        ("AIMessage", "Noted. Any cuisine you like?"),
        ("HumanMessage", "yes"),
        ("HumanMessage", "yes"),
    ]
    assert len({m.id for m in got}) == 4
    assert [m.content for m in other.messages] == ["Something else entirely."]
    # another tenant with the same ids sees nothing
    foreign = GumemChatMessageHistory("u-lc-hist", "s1", url=server, key="key-b")
    assert foreign.messages == []
    foreign.close()
    other.close()
    with Client(server, "key-a") as c:
        facts = c.execute(_FACTS, u="u-lc-hist")["facts"]
        assert any("peanut" in f["content"] for f in facts)
        h.clear()
        assert h.messages == []
        assert c.execute(_FACTS, u="u-lc-hist")["facts"] == []
        assert [m.content for m in c.messages("u-lc-hist")] == ["Something else entirely."]
    h.close()


async def test_chat_history_async(server: str) -> None:  # noqa: F811
    h = GumemChatMessageHistory("u-lc-ahist", "s1", url=server, key="key-a")
    await h.aadd_messages([HumanMessage("My cat is called Miso."), AIMessage("Cute name!")])
    assert [m.content for m in await h.aget_messages()] == [
        "My cat is called Miso.",
        "Cute name!",
    ]
    await h.aclear()
    assert await h.aget_messages() == []
    await h.aclose()


_FACTS = """query($u: String!) { facts(userId: $u) { id content } }"""
