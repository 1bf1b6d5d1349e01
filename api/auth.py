"""Bearer keys → tenants. A request without a valid key gets a 401 before any resolver."""

from __future__ import annotations

import hmac
import json

from starlette.types import ASGIApp, Receive, Scope, Send


def tenant_for(header: str | None, keys: dict[str, str]) -> str | None:
    if not header or not header.startswith("Bearer "):
        return None
    given = header[len("Bearer ") :].strip().encode()
    found = None
    for key, tenant in keys.items():
        if hmac.compare_digest(given, key.encode()):
            found = tenant
    return found


class BearerAuth:
    """ASGI middleware: POST /graphql needs `Authorization: Bearer <key>`.

    GET /graphql (the GraphiQL page) and /health stay open; the tenant goes into the
    ASGI scope for the GraphQL context.
    """

    def __init__(self, app: ASGIApp, keys: dict[str, str]) -> None:
        self.app = app
        self.keys = keys

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        tenant = tenant_for(headers.get("authorization"), self.keys)
        if tenant is None:
            reason = "missing" if "authorization" not in headers else "invalid"
            body = json.dumps(
                {
                    "data": None,
                    "errors": [
                        {
                            "message": f"unauthenticated: {reason} API key "
                            "(send Authorization: Bearer <key>)",
                            "extensions": {"code": "UNAUTHENTICATED"},
                        }
                    ],
                }
            ).encode()
            await send(
                {
                    "type": "http.response.start",
                    "status": 401,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"www-authenticate", b"Bearer"),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})
            return
        scope.setdefault("state", {})["tenant"] = tenant
        await self.app(scope, receive, send)
