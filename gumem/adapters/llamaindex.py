"""A LlamaIndex retriever over GUMem's recall (`pip install gumem[llamaindex]`).

`GumemRetriever(user_id="u1", url=..., key=...).retrieve("what do I like?")` gives one
NodeWithScore per recalled item (Summary, Fact or recent Message), in GUMem's order: the
node's text is the item's text, its `id_` the item's id, its metadata the kind, part,
score, topic and the ids of the source Facts and Messages (pass one to GUMem's `trace`).
`aretrieve` uses the async client (with its retries); each instance keeps one HTTP client
(gumem/adapters/http.py), `close()`/`aclose()` free it. Use it wherever LlamaIndex takes a
retriever, e.g. `RetrieverQueryEngine.from_args(retriever, llm=...)`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from gumem.adapters.http import Clients
from gumem.adapters.items import item_metadata, parts
from gumem.client import _MEMORY_FULL
from gumem.client_types import MemoryContext


def nodes(mem: MemoryContext) -> list[NodeWithScore]:
    return [
        NodeWithScore(
            node=TextNode(id_=it.id, text=it.content, metadata=item_metadata(it, part)),
            score=it.score,
        )
        for part, it in parts(mem)
    ]


class GumemRetriever(BaseRetriever):
    """Recall one user's memory from a GUMem server as LlamaIndex nodes."""

    def __init__(
        self,
        user_id: str,
        url: str | None = None,  # default: $GUMEM_URL, else http://127.0.0.1:8000/graphql
        key: str | None = None,  # default: $GUMEM_API_KEY
        session_id: str | None = None,
        limit: int | None = None,
        now: datetime | None = None,  # default: the server's clock
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.user_id = user_id
        self._http = Clients(url, key)
        self.session_id = session_id
        self.limit = limit
        self.now = now

    def close(self) -> None:
        self._http.close()

    async def aclose(self) -> None:
        await self._http.aclose()

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        data = self._http.sync().execute(
            _MEMORY_FULL,
            u=self.user_id,
            q=query_bundle.query_str,
            s=self.session_id,
            now=self.now.isoformat() if self.now else None,
            limit=self.limit,
        )
        return nodes(MemoryContext.from_json(data["memory"]))

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        mem = await self._http.aio().memory(
            self.user_id,
            query_bundle.query_str,
            self.session_id,
            now=self.now,
            limit=self.limit,
        )
        return nodes(mem)
