"""Each adapter instance keeps one HTTP client for all its calls (one connection pool), a
new async one only for a new event loop. The server's answers are scripted; the clients
httpx makes are counted."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from langchain_core.messages import HumanMessage

from gumem.adapters import langchain, llamaindex

ITEM = {
    "id": "s_1",
    "kind": "summary",
    "content": "Runs in carbon-plate shoes.",
    "score": 0.9,
    "reason": "topic",
    "topic": "running",
    "confidence": 0.8,
    "timestamp": None,
    "author": None,
    "superseded": False,
    "sourceFactIds": ["f_1"],
    "sourceMessageIds": ["m1"],
}
MEMORY = {
    "query": "q",
    "formattedContext": "Runs in carbon-plate shoes.",
    "timeWindowStart": None,
    "timeWindowEnd": None,
    "shortTermContext": [],
    "midTermContext": [ITEM],
    "longTermUserContext": [],
}
ADDED = {"accepted": ["x"], "duplicates": [], "processed": 1, "errors": []}


def answer(request: httpx.Request) -> httpx.Response:
    query = json.loads(request.content)["query"]
    if "addMessages" in query:
        return httpx.Response(200, json={"data": {"addMessages": ADDED}})
    if "messages(" in query:
        return httpx.Response(200, json={"data": {"messages": []}})
    return httpx.Response(200, json={"data": {"memory": MEMORY}})


class Made:
    def __init__(self) -> None:
        self.sync = 0
        self.aio = 0
        self.requests: list[httpx.Request] = []


@pytest.fixture
def made(monkeypatch: pytest.MonkeyPatch) -> Iterator[Made]:
    """httpx.Client and httpx.AsyncClient, counted, answering from `answer`."""
    seen = Made()
    real_sync, real_aio = httpx.Client, httpx.AsyncClient

    def handle(request: httpx.Request) -> httpx.Response:
        seen.requests.append(request)
        return answer(request)

    class Sync(real_sync):  # type: ignore[misc,valid-type]
        def __init__(self, **kw: Any) -> None:
            seen.sync += 1
            super().__init__(transport=httpx.MockTransport(handle), **kw)

    class Aio(real_aio):  # type: ignore[misc,valid-type]
        def __init__(self, **kw: Any) -> None:
            seen.aio += 1
            kw.pop("transport", None)
            super().__init__(transport=httpx.MockTransport(handle), **kw)

    monkeypatch.setattr(httpx, "Client", Sync)
    monkeypatch.setattr(httpx, "AsyncClient", Aio)
    monkeypatch.setenv("GUMEM_API_KEY", "env-key")
    monkeypatch.setenv("GUMEM_URL", "http://gumem.test/graphql")
    yield seen


def test_langchain_retriever_reuses_its_clients(made: Made) -> None:
    r = langchain.GumemRetriever(user_id="u1")
    for _ in range(3):
        assert r.invoke("shoes?")[0].metadata["id"] == "s_1"

    async def three() -> None:
        for _ in range(3):
            assert (await r.ainvoke("shoes?"))[0].page_content.startswith("Runs")

    asyncio.run(three())
    assert (made.sync, made.aio) == (1, 1) and len(made.requests) == 6
    asyncio.run(three())  # another event loop: one new async client for it, then reused
    assert (made.sync, made.aio) == (1, 2) and len(made.requests) == 9
    assert {str(q.url) for q in made.requests} == {"http://gumem.test/graphql"}
    assert {q.headers["authorization"] for q in made.requests} == {"Bearer env-key"}
    r.close()
    other = langchain.GumemRetriever(user_id="u1")  # another instance: its own client
    other.invoke("shoes?")
    assert made.sync == 2


def test_langchain_history_reuses_its_clients(made: Made) -> None:
    h = langchain.GumemChatMessageHistory("u1", "s1")
    h.add_user_message("I run every morning.")
    h.add_ai_message("Nice!")
    assert h.messages == []
    h.clear()

    async def calls() -> None:
        await h.aadd_messages([HumanMessage("again")])
        assert await h.aget_messages() == []
        await h.aclear()
        await h.aclose()

    asyncio.run(calls())
    assert (made.sync, made.aio) == (1, 1) and len(made.requests) == 7


def test_llamaindex_retriever_reuses_its_clients(made: Made) -> None:
    r = llamaindex.GumemRetriever("u1")
    for _ in range(3):
        assert r.retrieve("shoes?")[0].node.node_id == "s_1"

    async def three() -> None:
        for _ in range(3):
            assert (await r.aretrieve("shoes?"))[0].score == 0.9
        await r.aclose()

    asyncio.run(three())
    assert (made.sync, made.aio) == (1, 1) and len(made.requests) == 6
