"""Bearer keys → tenants. A request without a valid key gets a 401 before any resolver."""

from __future__ import annotations

import hmac
from collections.abc import Collection

from starlette.datastructures import QueryParams
from starlette.types import ASGIApp, Receive, Scope, Send

from web.edge import send_error

GRAPHQL_PATH = "/graphql"


def tenant_for(header: str | None, keys: dict[str, str]) -> str | None:
    if not header or not header.startswith("Bearer "):
        return None
    given = header[len("Bearer ") :].strip().encode()
    found = None
    for key, tenant in keys.items():
        if hmac.compare_digest(given, key.encode()):
            found = tenant
    return found


def is_open(scope: Scope, open_paths: Collection[str]) -> bool:
    """What needs no key: `open_paths` (health, static files), and GET/HEAD /graphql with
    no `query` parameter (the GraphiQL page: it executes nothing). Everything else —
    every method, every other path — needs one."""
    path = scope.get("path", "")
    if path in open_paths:
        return True
    if path != GRAPHQL_PATH or scope.get("method") not in ("GET", "HEAD"):
        return False
    # parsed the way the GraphQL view parses it, so both agree on whether a query is there
    return "query" not in QueryParams(scope.get("query_string", b""))


class BearerAuth:
    """ASGI middleware: every request needs `Authorization: Bearer <key>`, except those
    `is_open` lets through; the tenant goes into the ASGI scope for the GraphQL context."""

    def __init__(self, app: ASGIApp, keys: dict[str, str], open_paths: Collection[str]) -> None:
        self.app = app
        self.keys = keys
        self.open_paths = frozenset(open_paths)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or is_open(scope, self.open_paths):
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        tenant = tenant_for(headers.get("authorization"), self.keys)
        if tenant is not None:
            scope.setdefault("state", {})["tenant"] = tenant
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":  # no route takes one; refused all the same
            await send({"type": "websocket.close", "code": 1008})
            return
        reason = "missing" if "authorization" not in headers else "invalid"
        await send_error(
            send,
            401,
            "UNAUTHENTICATED",
            f"unauthenticated: {reason} API key (send Authorization: Bearer <key>)",
            [(b"www-authenticate", b"Bearer")],
        )
