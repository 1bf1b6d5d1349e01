"""The LangChain retriever (gumem.adapters.langchain) against a real uvicorn + Neo4j."""

from __future__ import annotations

import asyncio
from datetime import datetime

from gumem.adapters.langchain import GumemRetriever
from gumem.client import AsyncClient
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
