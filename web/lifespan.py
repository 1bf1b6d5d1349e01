"""What both HTTP doors (and MCP's stdio session) do with the runtime they serve: run it for
their lifetime, and answer /health from it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from service.runtime import Runtime


@asynccontextmanager
async def running(
    runtime: Runtime, start: Callable[[], Awaitable[None]], owned: bool = True
) -> AsyncIterator[None]:
    """`runtime` for the time of the block: when `owned`, started with `start` first and
    closed at the end; a runtime given started (tests, embedding) is left be."""
    if owned:
        await start()
    try:
        yield
    finally:
        if owned:
            await runtime.close()


def health_page(runtime: Runtime) -> Callable[[Request], Awaitable[Response]]:
    """/health: liveness, answered from memory (no query), so it stays fast under any load."""

    async def health(request: Request) -> Response:
        return JSONResponse(runtime.health())

    return health
