"""A LangChain retriever over GUMem's recall (`pip install gumem[langchain]`).

`GumemRetriever(url=..., key=..., user_id="u1").invoke("what do I like?")` gives one
Document per recalled item (Summary, Fact or recent Message): `page_content` is the item's
text, `metadata` its id, kind, score, topic and the ids of its source Facts and Messages
(pass an id to GUMem's `trace`). `ainvoke` uses the async client (with its retries)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever

from gumem.client import _MEMORY_FULL, AsyncClient, Client
from gumem.client_types import MemoryContext, MemoryItem


def documents(mem: MemoryContext) -> list[Document]:
    return [_document(i, part) for part, items in _parts(mem) for i in items]


def _parts(mem: MemoryContext) -> list[tuple[str, list[MemoryItem]]]:
    return [
        ("short_term", mem.short_term_context),
        ("mid_term", mem.mid_term_context),
        ("long_term", mem.long_term_user_context),
    ]


def _document(it: MemoryItem, part: str) -> Document:
    meta: dict[str, Any] = {
        "id": it.id,
        "kind": it.kind,
        "part": part,
        "score": it.score,
        "reason": it.reason,
        "topic": it.topic,
        "timestamp": it.timestamp.isoformat() if it.timestamp else None,
        "source_fact_ids": it.source_fact_ids,
        "source_message_ids": it.source_message_ids,
    }
    return Document(page_content=it.content, metadata=meta, id=it.id)


class GumemRetriever(BaseRetriever):
    """Recall one user's memory from a GUMem server as LangChain Documents."""

    url: str = "http://127.0.0.1:8000/graphql"
    key: str | None = None  # default: $GUMEM_API_KEY
    user_id: str
    session_id: str | None = None
    limit: int | None = None
    now: datetime | None = None  # default: the server's clock

    def _args(self, query: str) -> dict[str, Any]:
        return {
            "u": self.user_id,
            "q": query,
            "s": self.session_id,
            "now": self.now.isoformat() if self.now else None,
            "limit": self.limit,
        }

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun
    ) -> list[Document]:
        with Client(self.url, self.key) as c:
            data = c.execute(_MEMORY_FULL, **self._args(query))
        return documents(MemoryContext.from_json(data["memory"]))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        async with AsyncClient(self.url, self.key) as c:
            mem = await c.memory(
                self.user_id, query, self.session_id, now=self.now, limit=self.limit
            )
        return documents(mem)
