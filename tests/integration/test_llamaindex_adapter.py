"""The LlamaIndex retriever (gumem.adapters.llamaindex) against a real uvicorn + Neo4j."""

from __future__ import annotations

import asyncio
from datetime import datetime

from gumem.adapters.llamaindex import GumemRetriever
from gumem.client import AsyncClient
from tests.integration.helpers import seed
from tests.integration.test_http import server  # noqa: F401 - the fixture

DAY2 = datetime.fromisoformat("2026-12-01T10:00:00+08:00")


async def test_retriever_sync_and_async(server: str) -> None:  # noqa: F811
    async with AsyncClient(server, "key-a", timeout_s=600) as c:
        await c.add_messages(seed("en"))
        expected = await c.memory(
            "u-seed-en", "Any more recommendations for the shoes I looked at yesterday?", now=DAY2
        )
    r = GumemRetriever("u-seed-en", url=server, key="key-a", now=DAY2)
    q = "Any more recommendations for the shoes I looked at yesterday?"
    found = await asyncio.to_thread(r.retrieve, q)
    ranked = [
        *expected.short_term_context,
        *expected.mid_term_context,
        *expected.long_term_user_context,
    ]
    assert [n.node.node_id for n in found] == [i.id for i in ranked]
    summary = next(n for n in found if n.node.metadata["kind"] == "summary")
    assert "carbon" in summary.node.get_content() and summary.node.metadata["source_fact_ids"]
    assert summary.score is not None
    afound = await r.aretrieve(q)
    assert [n.node.node_id for n in afound] == [n.node.node_id for n in found]
    other = GumemRetriever("u-seed-en", url=server, key="key-b", now=DAY2)
    assert await other.aretrieve(q) == []
    await r.aclose()  # each keeps one HTTP client (pool) for its calls
    await other.aclose()
