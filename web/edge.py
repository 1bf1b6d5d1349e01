"""The HTTP edge before GraphQL: JSON error answers, the request-body size limit, and
each request's id and access line."""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from collections.abc import Collection

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from core.logs import REQUEST_ID
from core.metrics import HTTP_REQUESTS

access = logging.getLogger("gumem.access")


def error_body(code: str, message: str) -> bytes:
    """A GraphQL-shaped error answer, so every client reads every refusal the same way."""
    return json.dumps(
        {"data": None, "errors": [{"message": message, "extensions": {"code": code}}]}
    ).encode()


async def send_error(
    send: Send,
    status: int,
    code: str,
    message: str,
    headers: list[tuple[bytes, bytes]] | None = None,
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), *(headers or [])],
        }
    )
    await send({"type": "http.response.body", "body": error_body(code, message)})


class BodyLimit:
    """ASGI middleware: a request body over `max_bytes` gets a 413 before the app sees it.

    A declared Content-Length over the limit is refused without reading; a body without
    one (chunked) is read up to the limit, then handed to the app whole.
    """

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        too_large = f"request body larger than {self.max_bytes} bytes (GUMEM_MAX_BODY_BYTES)"
        declared = [v for k, v in scope["headers"] if k.lower() == b"content-length"]
        if declared:
            if len(declared) > 1 or not declared[0].strip().isdigit():
                await send_error(send, 400, "BAD_REQUEST", "invalid Content-Length header")
                return
            value = declared[0].strip()
            if len(value) > 18 or int(value) > self.max_bytes:
                await send_error(send, 413, "PAYLOAD_TOO_LARGE", too_large)
                return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client left: nothing to answer
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_bytes:
                await send_error(send, 413, "PAYLOAD_TOO_LARGE", too_large)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


# an X-Request-ID kept as sent: a short token (a UUID, a tracing id), nothing else
_SANE_ID = re.compile(r"[A-Za-z0-9._:/+=-]{1,128}")
_METHODS = frozenset({"GET", "POST", "HEAD", "OPTIONS", "PUT", "PATCH", "DELETE"})


class AccessLog:
    """ASGI middleware, outermost: gives each HTTP request an id (its `X-Request-ID` if
    sane, else a new one) that every log line of the request carries and the response
    echoes, then logs one line: method, path, status, duration. Never the query string
    (`GET /graphql?query=...` holds what an agent asked) nor a body; a path that is not
    one of `routes` is logged as "other", as it is counted (gumem_http_requests_total)."""

    def __init__(self, app: ASGIApp, routes: Collection[str]) -> None:
        self.app = app
        self.routes = frozenset(routes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = next((v for k, v in scope["headers"] if k.lower() == b"x-request-id"), b"")
        rid = given.decode("latin-1") if _SANE_ID.fullmatch(given.decode("latin-1")) else ""
        rid = rid or uuid.uuid4().hex
        token = REQUEST_ID.set(rid)
        started = time.perf_counter()
        status = 500  # what the server answers if the app fails before it starts a response

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [h for h in message.get("headers", []) if h[0].lower() != b"x-request-id"]
                message = {**message, "headers": [*headers, (b"x-request-id", rid.encode())]}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            path = scope.get("path", "")
            route = path if path in self.routes else "other"
            method = scope.get("method", "")
            method = method if method in _METHODS else "other"
            ms = round((time.perf_counter() - started) * 1000, 1)
            HTTP_REQUESTS.labels(method=method, route=route, status=str(status)).inc()
            access.info(
                "%s %s %d %.1f ms",
                method,
                route,
                status,
                ms,
                extra={"method": method, "path": route, "status": status, "duration_ms": ms},
            )
            REQUEST_ID.reset(token)
