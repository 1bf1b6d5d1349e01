"""A small typed client for the GraphQL API (httpx)."""

from __future__ import annotations

import os
from types import TracebackType
from typing import Any

import httpx

from gumem.errors import AuthError, GumemError, InputError, NotFoundError, StorageUnavailable

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
}


class Client:
    """`with Client(url, key) as c: c.add_messages([...]); c.memory(user, query)`."""

    def __init__(
        self,
        url: str = "http://127.0.0.1:8000/graphql",
        key: str | None = None,
        timeout_s: float = 60.0,  # above the server's sync processing budget (30 s)
    ) -> None:
        key = key or os.environ.get("GUMEM_API_KEY")
        if not key:
            raise AuthError("no API key: pass --key or set GUMEM_API_KEY")
        self.url = url
        self._http = httpx.Client(timeout=timeout_s, headers={"Authorization": f"Bearer {key}"})

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self, t: type[BaseException] | None, e: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._http.close()

    def execute(self, document: str, **variables: Any) -> dict[str, Any]:
        r = self._http.post(self.url, json={"query": document, "variables": variables})
        body: dict[str, Any] = r.json()
        if body.get("errors"):
            err = body["errors"][0]
            code = err.get("extensions", {}).get("code", "")
            raise _ERRORS.get(code, GumemError)(err.get("message", "request failed"))
        data: dict[str, Any] = body["data"]
        return data

    def add_messages(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        res: dict[str, Any] = self.execute(_ADD, m=messages)["addMessages"]
        return res

    def memory(
        self,
        user_id: str,
        query: str,
        session_id: str | None = None,
        now: str | None = None,
        limit: int | None = None,
        as_of: str | None = None,
    ) -> dict[str, Any]:
        res: dict[str, Any] = self.execute(
            _MEMORY, u=user_id, q=query, s=session_id, now=now, limit=limit, asOf=as_of
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

    def trace(self, node_id: str) -> dict[str, Any]:
        res = self.execute(_TRACE, id=node_id)["trace"]
        if res is None:
            raise NotFoundError(f"nothing to trace for {node_id!r}")
        out: dict[str, Any] = res
        return out


__all__ = ["Client", "InputError"]
