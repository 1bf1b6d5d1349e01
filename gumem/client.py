"""Python clients for the GraphQL API (httpx): a small sync one returning the response's
dicts, and AsyncClient returning typed records (gumem.client_types) with retries.

Both (and the CLI and the adapters, built on them) take the server's /graphql URL from
`url`, else $GUMEM_URL, else http://127.0.0.1:8000/graphql; the API key from `key`, else
$GUMEM_API_KEY. Failures are GUMem's errors (core/errors.py), never httpx's: a server that
cannot be reached is ServerUnreachable, a refused key AuthError."""

from __future__ import annotations

import asyncio
import logging
import os
import random
from collections.abc import Iterable, Mapping
from datetime import datetime
from types import TracebackType
from typing import Any

import httpx

from core.errors import (
    AuthError,
    GumemError,
    InputError,
    LimitError,
    NotFoundError,
    QueryTimeout,
    ServerUnreachable,
    StorageUnavailable,
)
from gumem.client_types import (
    AddMessagesResult,
    DeletionImpact,
    DeletionReport,
    ForgetReport,
    MemoryContext,
    Message,
    Topic,
    Trace,
    turns_to_messages,
)

log = logging.getLogger(__name__)
URL_ENV = "GUMEM_URL"
KEY_ENV = "GUMEM_API_KEY"
DEFAULT_URL = "http://127.0.0.1:8000/graphql"

_ADD = """mutation($m: [MessageInput!]!) { addMessages(messages: $m) {
  accepted duplicates processed errors { index field reason } } }"""
_MEMORY = """query($u: String!, $q: String!, $s: String, $now: DateTime, $limit: Int,
    $asOf: DateTime) {
  memory(userId: $u, query: $q, sessionId: $s, now: $now, limit: $limit, asOf: $asOf) {
    query formattedContext timeWindowStart timeWindowEnd
    shortTermContext { id kind content score reason }
    midTermContext { id kind content score reason topic confidence sourceFactIds
      sourceMessageIds }
    longTermUserContext { id kind content score reason } } }"""
_ITEM = """id kind content score reason topic confidence timestamp author superseded
  sourceFactIds sourceMessageIds"""
_MEMORY_FULL = f"""query($u: String!, $q: String!, $s: String, $now: DateTime, $limit: Int,
    $asOf: DateTime) {{
  memory(userId: $u, query: $q, sessionId: $s, now: $now, limit: $limit, asOf: $asOf) {{
    query formattedContext timeWindowStart timeWindowEnd
    shortTermContext {{ {_ITEM} }} midTermContext {{ {_ITEM} }}
    longTermUserContext {{ {_ITEM} }} }} }}"""
_TRACE_FULL = """query($id: ID!) { trace(id: $id) { rootId rootKind cypher params truncated
  nodes { id label properties } edges { source type target } } }"""
_TOPICS = """query($u: String!, $limit: Int!, $offset: Int!) {
  topics(userId: $u, limit: $limit, offset: $offset) { id name summaryCount factCount } }"""
_MESSAGE = """query($id: ID!) { message(id: $id) { id userId sessionId role content timestamp
  eventType page metadata status } }"""
_MESSAGES = """query($u: String!, $s: String, $limit: Int!, $offset: Int!) {
  messages(userId: $u, sessionId: $s, limit: $limit, offset: $offset) { id userId sessionId
    role content timestamp eventType page metadata status } }"""
_IMPACT_FIELDS = """messageId removedFacts keptFacts restoredFacts rebuiltSummaries
  retiredSummaries purgedVersions newSummaries orphanEntities orphanTopics"""
_IMPACT = f"""query($id: ID!) {{ deletionImpact(messageId: $id) {{ {_IMPACT_FIELDS} }} }}"""
_DELETE = f"""mutation($id: ID!) {{ deleteMessage(id: $id) {{
  impact {{ {_IMPACT_FIELDS} }} counts }} }}"""
_FORGET = """mutation($u: String!) { forgetUser(userId: $u) { userId counts remaining } }"""
_TRACE = """query($id: ID!) { trace(id: $id) { rootId rootKind cypher params
  nodes { id label properties } edges { source type target } } }"""
_FAILED = """query($u: String, $limit: Int!, $offset: Int!) {
  failedMessages(userId: $u, limit: $limit, offset: $offset) {
    id userId sessionId reason attempts lastAttemptAt timestamp } }"""
_RETRY = """mutation($ids: [ID!]!) { retryMessages(ids: $ids) }"""
_RETRY_USER = """mutation($u: String!) { retryFailed(userId: $u) }"""
_ERRORS: dict[str, type[GumemError]] = {
    "UNAUTHENTICATED": AuthError,
    "NOT_FOUND": NotFoundError,
    "STORAGE_UNAVAILABLE": StorageUnavailable,
    "LIMIT_EXCEEDED": LimitError,
    "QUERY_TIMEOUT": QueryTimeout,
}


def resolve_url(url: str | None = None) -> str:
    """`url`, else $GUMEM_URL, else the local server's /graphql."""
    return url or os.environ.get(URL_ENV) or DEFAULT_URL


def resolve_key(key: str | None = None) -> str:
    """`key`, else $GUMEM_API_KEY; neither is an AuthError that says so."""
    found = (key or os.environ.get(KEY_ENV) or "").strip()
    if not found:
        raise AuthError(f"no API key: set {KEY_ENV} (or pass --key / key=)")
    return found


def _when(value: datetime | str | None) -> str | None:
    return value.isoformat() if isinstance(value, datetime) else value


def _memory_vars(
    user_id: str,
    query: str,
    session_id: str | None,
    now: datetime | str | None,
    limit: int | None,
    as_of: datetime | str | None,
) -> dict[str, Any]:
    """The variables of a `memory(...)` query, for both clients."""
    return {
        "u": user_id,
        "q": query,
        "s": session_id,
        "now": _when(now),
        "limit": limit,
        "asOf": _when(as_of),
    }


def _transport_error(exc: Exception, url: str) -> GumemError:
    """httpx's failure to send or to hear back, as one of GUMem's errors naming the URL."""
    if isinstance(exc, httpx.UnsupportedProtocol | httpx.InvalidURL):
        return InputError("url", f"not an http(s) URL: {url}")
    if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
        return ServerUnreachable(f"cannot reach the GUMem server at {url} (is it running?)")
    if isinstance(exc, httpx.TimeoutException):
        return GumemError(f"no answer from {url} in time ({type(exc).__name__})")
    return GumemError(f"the request to {url} failed ({type(exc).__name__})")


def _answer(r: httpx.Response, url: str) -> dict[str, Any]:
    """The `data` of a GraphQL response; its errors raised as GUMem's."""
    if r.status_code == 401:
        raise AuthError(
            f"the server at {url} refused the API key: set {KEY_ENV} (or pass --key / key=) "
            "to a key of its GUMEM_API_KEYS"
        )
    try:
        body = r.json()
    except ValueError:
        body = None
    if not isinstance(body, dict):
        raise GumemError(f"{url} answered HTTP {r.status_code}, not GraphQL (is it /graphql?)")
    _raise_errors(body)
    data = body.get("data")
    if not isinstance(data, dict):
        raise GumemError(f"{url} answered HTTP {r.status_code} without data")
    return data


class Client:
    """`with Client(url, key) as c: c.add_messages([...]); c.memory(user, query)`."""

    def __init__(
        self,
        url: str | None = None,  # default: $GUMEM_URL, else http://127.0.0.1:8000/graphql
        key: str | None = None,  # default: $GUMEM_API_KEY
        timeout_s: float = 60.0,  # above the server's sync processing budget (30 s)
    ) -> None:
        key = resolve_key(key)
        self.url = resolve_url(url)
        self._http = httpx.Client(timeout=timeout_s, headers={"Authorization": f"Bearer {key}"})

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def execute(self, document: str, **variables: Any) -> dict[str, Any]:
        try:
            r = self._http.post(self.url, json={"query": document, "variables": variables})
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise _transport_error(exc, self.url) from exc
        return _answer(r, self.url)

    def add_messages(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        res: dict[str, Any] = self.execute(_ADD, m=messages)["addMessages"]
        return res

    def memory(
        self,
        user_id: str,
        query: str,
        session_id: str | None = None,
        now: datetime | str | None = None,
        limit: int | None = None,
        as_of: datetime | str | None = None,
    ) -> dict[str, Any]:
        """`as_of`: the memory as it stood then (what was known at that time)."""
        res: dict[str, Any] = self.execute(
            _MEMORY, **_memory_vars(user_id, query, session_id, now, limit, as_of)
        )["memory"]
        return res

    def failed_messages(
        self, user_id: str | None = None, limit: int = 50, offset: int = 0
    ) -> list[dict[str, Any]]:
        res: list[dict[str, Any]] = self.execute(_FAILED, u=user_id, limit=limit, offset=offset)[
            "failedMessages"
        ]
        return res

    def retry_messages(self, ids: list[str]) -> int:
        return int(self.execute(_RETRY, ids=ids)["retryMessages"])

    def retry_failed(self, user_id: str) -> int:
        return int(self.execute(_RETRY_USER, u=user_id)["retryFailed"])

    def messages(
        self, user_id: str, session_id: str | None = None, limit: int = 50, offset: int = 0
    ) -> list[Message]:
        """A user's Messages (or one session's), oldest first."""
        rows = self.execute(_MESSAGES, u=user_id, s=session_id, limit=limit, offset=offset)
        return [Message.from_json(r) for r in rows["messages"]]

    def delete_message(self, message_id: str) -> DeletionReport:
        res = self.execute(_DELETE, id=message_id)["deleteMessage"]
        return DeletionReport(DeletionImpact.from_json(res["impact"]), dict(res["counts"]))

    def trace(self, node_id: str) -> dict[str, Any]:
        res = self.execute(_TRACE, id=node_id)["trace"]
        if res is None:
            raise NotFoundError(f"nothing to trace for {node_id!r}")
        out: dict[str, Any] = res
        return out


def _raise_errors(body: Mapping[str, Any]) -> None:
    if body.get("errors"):
        err = body["errors"][0]
        code = err.get("extensions", {}).get("code", "")
        message = str(err.get("message", "request failed"))
        if code == "BAD_INPUT":  # "field: reason", as InputError wrote it
            field, _, reason = message.partition(": ")
            raise InputError(field, reason)
        raise _ERRORS.get(code, GumemError)(message)


class AsyncClient:
    """`async with AsyncClient(url, key) as c: await c.add_turns(...); await c.memory(...)`.

    Results are typed records (gumem.client_types). A STORAGE_UNAVAILABLE answer (Neo4j
    down or restarting: the request wrote nothing) and a connection that could not be
    opened are retried `retries` times with exponential backoff and jitter, then raise
    (StorageUnavailable, ServerUnreachable); other errors raise at once (AuthError,
    InputError, NotFoundError, GumemError with the server's message). Retrying
    addMessages is safe: ids already stored come back as duplicates."""

    def __init__(
        self,
        url: str | None = None,  # default: $GUMEM_URL, else http://127.0.0.1:8000/graphql
        key: str | None = None,  # default: $GUMEM_API_KEY
        timeout_s: float = 60.0,  # above the server's sync processing budget (30 s)
        retries: int = 4,
        backoff_s: float = 0.5,
        max_backoff_s: float = 8.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        key = resolve_key(key)
        self.url = resolve_url(url)
        self.retries = retries
        self.backoff_s = backoff_s
        self.max_backoff_s = max_backoff_s
        self._http = httpx.AsyncClient(
            timeout=timeout_s, headers={"Authorization": f"Bearer {key}"}, transport=transport
        )

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    def _delay(self, attempt: int) -> float:
        base: float = min(self.max_backoff_s, self.backoff_s * 2**attempt)
        return base * (0.5 + random.random() / 2)

    async def execute(self, document: str, **variables: Any) -> dict[str, Any]:
        for attempt in range(self.retries + 1):
            try:
                return await self._once(document, variables)
            except (StorageUnavailable, ServerUnreachable) as exc:
                if attempt == self.retries:
                    raise
                log.info("retrying: %s", type(exc).__name__)
                await asyncio.sleep(self._delay(attempt))
        raise AssertionError("unreachable")

    async def _once(self, document: str, variables: dict[str, Any]) -> dict[str, Any]:
        try:
            r = await self._http.post(self.url, json={"query": document, "variables": variables})
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise _transport_error(exc, self.url) from exc
        return _answer(r, self.url)

    async def add_messages(self, messages: list[dict[str, Any]]) -> AddMessagesResult:
        return AddMessagesResult.from_json((await self.execute(_ADD, m=messages))["addMessages"])

    async def add_turns(
        self,
        turns: Iterable[Mapping[str, Any]],
        user_id: str,
        session_id: str,
        start: datetime | None = None,
    ) -> AddMessagesResult:
        """An agent's chat turns ([{role, content}]) as messages (see turns_to_messages)."""
        return await self.add_messages(turns_to_messages(turns, user_id, session_id, start))

    async def memory(
        self,
        user_id: str,
        query: str,
        session_id: str | None = None,
        now: datetime | str | None = None,
        limit: int | None = None,
        as_of: datetime | str | None = None,
    ) -> MemoryContext:
        """The context for `query`; `as_of` recalls the memory as it stood then (what was
        known at that time: Messages up to it, the Facts valid at it, the Summary versions
        built from those), while `now` still resolves "yesterday" in the query."""
        data = await self.execute(
            _MEMORY_FULL, **_memory_vars(user_id, query, session_id, now, limit, as_of)
        )
        return MemoryContext.from_json(data["memory"])

    async def trace(self, node_id: str) -> Trace:
        res = (await self.execute(_TRACE_FULL, id=node_id))["trace"]
        if res is None:
            raise NotFoundError(f"nothing to trace for {node_id!r}")
        return Trace.from_json(res)

    async def topics(self, user_id: str, limit: int = 50, offset: int = 0) -> list[Topic]:
        rows = (await self.execute(_TOPICS, u=user_id, limit=limit, offset=offset))["topics"]
        return [Topic.from_json(r) for r in rows]

    async def message(self, message_id: str) -> Message | None:
        row = (await self.execute(_MESSAGE, id=message_id))["message"]
        return Message.from_json(row) if row else None

    async def messages(
        self, user_id: str, session_id: str | None = None, limit: int = 50, offset: int = 0
    ) -> list[Message]:
        """A user's Messages (or one session's), oldest first."""
        rows = (await self.execute(_MESSAGES, u=user_id, s=session_id, limit=limit, offset=offset))[
            "messages"
        ]
        return [Message.from_json(r) for r in rows]

    async def deletion_impact(self, message_id: str) -> DeletionImpact:
        return DeletionImpact.from_json(
            (await self.execute(_IMPACT, id=message_id))["deletionImpact"]
        )

    async def delete_message(self, message_id: str) -> DeletionReport:
        res = (await self.execute(_DELETE, id=message_id))["deleteMessage"]
        return DeletionReport(DeletionImpact.from_json(res["impact"]), dict(res["counts"]))

    async def forget_user(self, user_id: str) -> ForgetReport:
        res = (await self.execute(_FORGET, u=user_id))["forgetUser"]
        return ForgetReport(res["userId"], dict(res["counts"]), int(res["remaining"]))


__all__ = [
    "AsyncClient",
    "Client",
    "InputError",
    "ServerUnreachable",
    "resolve_key",
    "resolve_url",
    "turns_to_messages",
]
