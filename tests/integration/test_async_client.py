"""gumem.client.AsyncClient against a real uvicorn + Neo4j: typed records, the chat-turn
helper (idempotent resend), provenance, deletion, tenancy, auth, `as_of`, and retries while
the server is not up yet."""

from __future__ import annotations

import asyncio
import threading
import time
from datetime import datetime
from typing import Any

import pytest
import uvicorn

from api.app import create_app
from core.errors import AuthError, InputError, ServerUnreachable
from core.settings import Settings
from gumem.client import AsyncClient
from gumem.client_types import MemoryContext
from service.memory import Memory
from tests.integration.helpers import free_port, seed
from tests.integration.test_as_of import BEFORE_FIX, DAY1, FIX, USER, Q
from tests.integration.test_corrections import current_lines
from tests.integration.test_http import server  # noqa: F401 - the fixture

DAY2 = datetime.fromisoformat("2026-12-01T10:00:00+08:00")


async def test_async_client_seed_typed_results(server: str) -> None:  # noqa: F811
    async with AsyncClient(server, "key-a", timeout_s=600) as c:
        res = await c.add_messages(seed("zh"))
        assert len(res.accepted) == 10 and res.errors == [] and res.processed >= 1
        mem = await c.memory("u-seed", "昨天看的鞋还有推荐吗？", now=DAY2)
        assert isinstance(mem, MemoryContext)
        for word in ("800", "42", "浅色", "缓震", "碳板"):
            assert word in mem.formatted_context
        summary = mem.mid_term_context[0]
        assert summary.kind == "summary" and summary.source_fact_ids
        assert summary.id in mem.ids
        trace = await c.trace(summary.id)
        assert trace.root_kind == "Summary"
        assert {n.label for n in trace.nodes} >= {"Summary", "Fact", "Message"}
        topics = await c.topics("u-seed")
        assert "跑鞋" in {t.name for t in topics}  # named in its Facts' language (issue 37)
        m1 = await c.message("m1")
        assert m1 is not None and m1.user_id == "u-seed" and m1.timestamp.tzinfo is not None
        impact = await c.deletion_impact("e8")
        assert impact.message_id == "e8" and impact.removed_facts
        report = await c.delete_message("e8")
        assert report.impact.removed_facts == impact.removed_facts
        assert await c.message("e8") is None
        # a bad batch is reported per item, typed; nothing is written
        bad = await c.add_messages([{**seed("zh")[0], "id": "x1", "timestamp": "yesterday"}])
        assert bad.accepted == [] and bad.errors[0].field == "timestamp"
        with pytest.raises(InputError):
            await c.memory("u-seed", "   ")
    async with AsyncClient(server, "key-b", timeout_s=600) as other:
        assert (await other.memory("u-seed", "昨天看的鞋还有推荐吗？", now=DAY2)).ids == []
        assert await other.topics("u-seed") == []
    with pytest.raises(AuthError):
        async with AsyncClient(server, "wrong-key") as c:
            await c.topics("u-seed")


async def test_async_client_chat_turns(server: str) -> None:  # noqa: F811
    turns: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "I'm allergic to peanuts, keep that in mind."},
        {"role": "assistant", "content": "Noted, no peanuts."},
        {"role": "user", "content": [{"type": "text", "text": "Any snack ideas for a hike?"}]},
    ]
    async with AsyncClient(server, "key-a", timeout_s=600) as c:
        first = await c.add_turns(turns, "u-chat", "s1", start=DAY2)
        assert len(first.accepted) == 3 and first.errors == []  # the system turn is left out
        again = await c.add_turns(turns, "u-chat", "s1", start=DAY2)
        assert again.accepted == [] and sorted(again.duplicates) == sorted(first.accepted)
        stored = await c.message(first.accepted[0])
        assert stored is not None and stored.role == "user" and "peanuts" in stored.content
        assert (await c.message(first.accepted[2])).content == "Any snack ideas for a hike?"  # type: ignore[union-attr]
        forgot = await c.forget_user("u-chat")
        assert forgot.remaining == 0 and forgot.user_id == "u-chat"
        assert await c.message(first.accepted[0]) is None


async def test_async_client_retries_until_the_server_is_up(
    settings: Settings, memory: Memory
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/graphql"
    srv = uvicorn.Server(
        uvicorn.Config(
            create_app(settings.model_copy(update={"port": port})),
            host="127.0.0.1",
            port=port,
            log_level="warning",
        )
    )

    def late_start() -> None:
        time.sleep(1.0)
        srv.run()

    thread = threading.Thread(target=late_start, daemon=True)
    async with AsyncClient(
        url, "key-a", timeout_s=600, retries=12, backoff_s=0.5, max_backoff_s=4.0
    ) as c:
        thread.start()  # nothing listens for a second, then the server starts its runtime
        started = time.monotonic()
        topics = await c.topics("nobody")
        assert topics == [] and time.monotonic() - started >= 0.5
    srv.should_exit = True
    await asyncio.to_thread(thread.join, 30)
    # with no retries left, an unreachable server is ServerUnreachable, not httpx's error
    async with AsyncClient(url, "key-a", retries=1, backoff_s=0.01) as c:
        with pytest.raises(ServerUnreachable, match=url):
            await c.topics("nobody")


async def test_async_client_memory_as_of(server: str) -> None:  # noqa: F811
    """`as_of` is GraphQL's asOf: the memory before a correction, then as it is now."""
    async with AsyncClient(server, "key-a", timeout_s=600) as c:
        assert (await c.add_messages(DAY1)).errors == []  # processed alone: a day-one version
        assert (await c.add_messages([FIX])).errors == []
        now = await c.memory(USER, Q)
        then = await c.memory(USER, Q, as_of=BEFORE_FIX)
        same = await c.memory(USER, Q, as_of=datetime.fromisoformat(BEFORE_FIX))
        with pytest.raises(InputError, match="asOf"):
            await c.memory(USER, Q, as_of="2026-10-06T12:00:00")  # no offset
    assert "1200" in now.formatted_context
    assert "1200" not in then.formatted_context, then.formatted_context
    assert current_lines(then.formatted_context, "900"), then.formatted_context
    assert same.formatted_context == then.formatted_context
