"""AsyncClient's retry policy and the chat-turn helper (no server: the HTTP answers are
scripted, the way a GraphQL server answers while Neo4j is down)."""

from __future__ import annotations

import json
import socket
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from core.errors import AuthError, GumemError, NotFoundError, ServerUnreachable, StorageUnavailable
from core.inputs import parse_batch
from core.settings import Settings
from gumem.client import AsyncClient, Client, resolve_key, resolve_url
from gumem.client_types import turns_to_messages

DOWN_ERROR = {"message": "storage unavailable", "extensions": {"code": "STORAGE_UNAVAILABLE"}}
DOWN = {"data": None, "errors": [DOWN_ERROR]}
TOPICS = {"data": {"topics": [{"id": "t1", "name": "travel", "summaryCount": 1, "factCount": 2}]}}


def scripted(answers: list[dict[str, Any]], seen: list[httpx.Request]) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=answers[min(len(seen), len(answers)) - 1])

    return httpx.MockTransport(handle)


async def test_storage_unavailable_is_retried_then_succeeds() -> None:
    seen: list[httpx.Request] = []
    t = scripted([DOWN, DOWN, TOPICS], seen)
    async with AsyncClient("http://x/graphql", "k", retries=3, backoff_s=0.001, transport=t) as c:
        topics = await c.topics("u")
    assert len(seen) == 3 and topics[0].name == "travel" and topics[0].fact_count == 2
    assert seen[0].headers["authorization"] == "Bearer k"


async def test_retries_give_up_with_storage_unavailable() -> None:
    seen: list[httpx.Request] = []
    t = scripted([DOWN], seen)
    async with AsyncClient("http://x/graphql", "k", retries=2, backoff_s=0.001, transport=t) as c:
        with pytest.raises(StorageUnavailable):
            await c.topics("u")
    assert len(seen) == 3


async def test_other_errors_are_not_retried() -> None:
    seen: list[httpx.Request] = []
    gone = {"data": None, "errors": [{"message": "no", "extensions": {"code": "NOT_FOUND"}}]}
    t = scripted([gone, TOPICS], seen)
    async with AsyncClient("http://x/graphql", "k", retries=3, backoff_s=0.001, transport=t) as c:
        with pytest.raises(NotFoundError):
            await c.topics("u")
    assert len(seen) == 1


def test_backoff_grows_and_is_capped() -> None:
    c = AsyncClient("http://x/graphql", "k", backoff_s=1.0, max_backoff_s=4.0)
    delays = [c._delay(a) for a in range(6)]
    assert 0.5 <= delays[0] <= 1.0 and 2.0 <= delays[2] <= 4.0
    assert all(d <= 4.0 for d in delays)


def test_turns_become_valid_messages_with_stable_ids() -> None:
    turns: list[dict[str, Any]] = [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "I moved to a new flat last week."},
        {"role": "assistant", "content": "Congratulations!"},
        {"role": "tool", "content": "{}"},
        {"role": "human", "content": [{"type": "text", "text": "It has a balcony."}]},
        {"role": "user", "content": "   "},
    ]
    start = datetime(2026, 1, 1, tzinfo=UTC)
    msgs = turns_to_messages(turns, "u1", "s1", start=start)
    assert [m["role"] for m in msgs] == ["user", "assistant", "user"]
    assert msgs[2]["content"] == "It has a balcony."
    assert msgs == turns_to_messages(turns, "u1", "s1", start=start)  # resend: same ids
    assert len({m["id"] for m in msgs}) == 3
    other = turns_to_messages(turns, "u1", "s2", start=start)
    assert {m["id"] for m in other}.isdisjoint(m["id"] for m in msgs)
    parsed = parse_batch(msgs, Settings())
    assert [p.timestamp for p in parsed] == sorted(p.timestamp for p in parsed)
    kept = turns_to_messages([{"role": "user", "content": "hi", "id": "mine"}], "u", "s")
    assert kept[0]["id"] == "mine"


MEMORY: dict[str, Any] = {
    "data": {
        "memory": {
            "query": "q",
            "formattedContext": "",
            "timeWindowStart": None,
            "timeWindowEnd": None,
            "shortTermContext": [],
            "midTermContext": [],
            "longTermUserContext": [],
        }
    }
}


async def test_memory_passes_as_of_through() -> None:
    seen: list[httpx.Request] = []
    t = scripted([MEMORY], seen)
    when = datetime(2026, 10, 6, 12, tzinfo=UTC)
    async with AsyncClient("http://x/graphql", "k", transport=t) as c:
        await c.memory("u", "q", as_of=when)
        await c.memory("u", "q", as_of="2026-10-06T12:00:00+02:00")
        await c.memory("u", "q")
    sent = [json.loads(r.content) for r in seen]
    assert "asOf: $asOf" in sent[0]["query"]
    assert [s["variables"]["asOf"] for s in sent] == [
        when.isoformat(),
        "2026-10-06T12:00:00+02:00",
        None,
    ]


def test_one_key_and_url_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GUMEM_API_KEY", raising=False)
    monkeypatch.delenv("GUMEM_URL", raising=False)
    for make in (Client, AsyncClient):
        with pytest.raises(AuthError, match="GUMEM_API_KEY"):
            make()
    assert resolve_url() == "http://127.0.0.1:8000/graphql"
    monkeypatch.setenv("GUMEM_API_KEY", " env-key ")
    monkeypatch.setenv("GUMEM_URL", "http://gumem.internal:9000/graphql")
    assert resolve_key() == "env-key" and resolve_key("given") == "given"
    with Client() as c:
        assert c.url == "http://gumem.internal:9000/graphql"
        assert c._http.headers["authorization"] == "Bearer env-key"
    a = AsyncClient()
    assert a.url == "http://gumem.internal:9000/graphql"
    assert a._http.headers["authorization"] == "Bearer env-key"


async def test_answers_that_are_not_graphql_are_gumem_errors() -> None:
    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/graphql":
            return httpx.Response(401, json={"errors": [{"message": "unauthenticated"}]})
        return httpx.Response(502, text="<html>bad gateway</html>")

    t = httpx.MockTransport(handle)
    async with AsyncClient("http://x/graphql", "k", transport=t) as c:
        with pytest.raises(AuthError, match=r"http://x/graphql refused the API key.*GUMEM_API_KEY"):
            await c.topics("u")
    async with AsyncClient("http://x/other", "k", transport=t) as c:
        with pytest.raises(GumemError, match="HTTP 502, not GraphQL"):
            await c.topics("u")


async def test_a_closed_port_is_retried_then_server_unreachable() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/graphql"
    async with AsyncClient(url, "k", retries=2, backoff_s=0.001) as c:
        with pytest.raises(ServerUnreachable, match=f"cannot reach the GUMem server at {url}"):
            await c.topics("u")
    with Client(url, "k") as sync, pytest.raises(ServerUnreachable):
        sync.failed_messages()
