"""The HTTP edge before GraphQL: JSON error answers and the request-body size limit."""

from __future__ import annotations

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send


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
