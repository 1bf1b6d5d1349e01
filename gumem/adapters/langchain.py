"""LangChain adapters (`pip install gumem[langchain]`): a retriever over GUMem's recall
and a chat-message history kept in GUMem (GumemChatMessageHistory, below).

`GumemRetriever(url=..., key=..., user_id="u1").invoke("what do I like?")` gives one
Document per recalled item (Summary, Fact or recent Message): `page_content` is the item's
text, `metadata` its id, kind, score, topic and the ids of its source Facts and Messages
(pass an id to GUMem's `trace`). `ainvoke` uses the async client (with its retries).
Each instance keeps one HTTP client (gumem/adapters/http.py); `close()`/`aclose()` free it."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.retrievers import BaseRetriever
from pydantic import PrivateAttr

from core.errors import InputError
from gumem.adapters.http import Clients
from gumem.adapters.items import item_metadata, parts
from gumem.client import _MEMORY_FULL, AsyncClient, Client
from gumem.client_types import AddMessagesResult, MemoryContext, Message, turns_to_messages


def documents(mem: MemoryContext) -> list[Document]:
    return [
        Document(page_content=it.content, metadata=item_metadata(it, part), id=it.id)
        for part, it in parts(mem)
    ]


class GumemRetriever(BaseRetriever):
    """Recall one user's memory from a GUMem server as LangChain Documents."""

    url: str | None = None  # default: $GUMEM_URL, else http://127.0.0.1:8000/graphql
    key: str | None = None  # default: $GUMEM_API_KEY
    user_id: str
    session_id: str | None = None
    limit: int | None = None
    now: datetime | None = None  # default: the server's clock
    _http: Clients = PrivateAttr()

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        self._http = Clients(self.url, self.key)

    def close(self) -> None:
        self._http.close()

    async def aclose(self) -> None:
        await self._http.aclose()

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
        data = self._http.sync().execute(_MEMORY_FULL, **self._args(query))
        return documents(MemoryContext.from_json(data["memory"]))

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        mem = await self._http.aio().memory(
            self.user_id, query, self.session_id, now=self.now, limit=self.limit
        )
        return documents(mem)


PAGE = 200  # the API's largest page


def _chat_message(m: Message) -> BaseMessage | None:
    if m.event_type != "message":  # behaviour events are not chat turns
        return None
    if m.role == "user":
        return HumanMessage(content=m.content, id=m.id)
    if m.role == "assistant":
        return AIMessage(content=m.content, id=m.id)
    return None


def _turns(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    # Each turn gets a fresh id: a history grows one call at a time, so an id derived
    # from the position in the call would make a repeated "yes" a duplicate.
    return [
        {"role": m.type, "content": m.content, "id": f"lc-{uuid.uuid4().hex}"} for m in messages
    ]


class GumemChatMessageHistory(BaseChatMessageHistory):
    """One session's chat history kept in GUMem, so the turns also become memory.

    `messages` reads the session's user and assistant turns oldest first (behaviour events
    and system turns are left out; at most `max_messages`); `add_messages` stores new turns
    through addMessages, where they are extracted like any other message; `clear` deletes
    every Message of the session with deleteMessage, which also removes or rebuilds the
    Facts and Summaries drawn from them (see deletionImpact)."""

    def __init__(
        self,
        user_id: str,
        session_id: str,
        url: str | None = None,  # default: $GUMEM_URL, else http://127.0.0.1:8000/graphql
        key: str | None = None,  # default: $GUMEM_API_KEY
        max_messages: int = 1000,
    ) -> None:
        self.user_id = user_id
        self.session_id = session_id
        self.max_messages = max_messages
        self._http = Clients(url, key)

    def close(self) -> None:
        self._http.close()

    async def aclose(self) -> None:
        await self._http.aclose()

    def _stored(self, c: Client) -> list[Message]:
        out: list[Message] = []
        while len(out) < self.max_messages:
            page = c.messages(self.user_id, self.session_id, PAGE, len(out))
            out.extend(page)
            if len(page) < PAGE:
                break
        return out[: self.max_messages]

    async def _astored(self, c: AsyncClient) -> list[Message]:
        out: list[Message] = []
        while len(out) < self.max_messages:
            page = await c.messages(self.user_id, self.session_id, PAGE, len(out))
            out.extend(page)
            if len(page) < PAGE:
                break
        return out[: self.max_messages]

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        stored = self._stored(self._http.sync())
        return [m for m in map(_chat_message, stored) if m is not None]

    async def aget_messages(self) -> list[BaseMessage]:
        stored = await self._astored(self._http.aio())
        return [m for m in map(_chat_message, stored) if m is not None]

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        batch = turns_to_messages(_turns(messages), self.user_id, self.session_id)
        if batch:
            _check(AddMessagesResult.from_json(self._http.sync().add_messages(batch)))

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        batch = turns_to_messages(_turns(messages), self.user_id, self.session_id)
        if batch:
            _check(await self._http.aio().add_messages(batch))

    def clear(self) -> None:
        c = self._http.sync()
        for m in self._stored(c):
            c.delete_message(m.id)

    async def aclear(self) -> None:
        c = self._http.aio()
        for m in await self._astored(c):
            await c.delete_message(m.id)


def _check(res: AddMessagesResult) -> None:
    if res.errors:
        e = res.errors[0]
        raise InputError(e.field, e.reason, e.index)
