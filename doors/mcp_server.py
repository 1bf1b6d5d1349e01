"""`gumem mcp`: GUMem as a Model Context Protocol server (the official `mcp` SDK).

The tools (doors/mcp_tools.py) call the same service layer as the GraphQL resolvers
(service.memory.Memory and service.erasure): the same validation, tenancy, limits and audit
records. Over stdio the
tenant is GUMEM_MCP_TENANT (one local agent, one tenant; by default `dev`, the tenant of the
key `gumem serve` generates, so GraphiQL with that key shows what the agent stored); over
streamable HTTP every request needs `Authorization: Bearer <key>` with a key of
GUMEM_API_KEYS, checked by the same middleware as /graphql, and the key names the tenant.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Literal

from mcp.server.mcpserver import MCPServer
from starlette.applications import Starlette
from starlette.routing import Route

from core.settings import Settings
from doors.mcp_tools import RESOURCES, TOOLS, Door, start_runtime
from service.runtime import Runtime
from web.auth import BearerAuth
from web.edge import AccessLog, BodyLimit
from web.lifespan import health_page, running

log = logging.getLogger(__name__)
MCP_PATH = "/mcp"

INSTRUCTIONS = """GUMem is this user's long-term memory: what they said and did earlier,
distilled into Facts (one statement each, with the Messages that support it) and Summaries
(one per topic, built from Facts). Call `recall` at the start of a turn whenever the user
refers to anything earlier ("again", "last time", "the shoes I looked at", their
preferences, budget, plans) or when personal context would change your answer, and put its
`formattedContext` into your reasoning. Call `add_messages` after each turn with the new
user and assistant messages (and any app events) so they are remembered. Every id you get
back (Message ids are the ones you sent; Fact ids start with f_, Summary ids with s_) can be
passed to `trace` to see why GUMem believes something, or read as a resource
(gumem://message/{id}, gumem://fact/{id}, gumem://summary/{id})."""


def build_server(
    runtime: Runtime,
    settings: Settings,
    transport: Literal["stdio", "http"],
    owns_runtime: bool = False,
) -> MCPServer[Door]:
    """The MCP server in front of `runtime`'s Memory, its tools and resources registered
    (doors/mcp_tools.py). Its lifespan hands the tools a `Door`; with `owns_runtime`
    (stdio) it starts and closes the runtime, inside the stdio session, so the extraction
    processes it spawns never write to the protocol's stdout."""
    door = Door(runtime, settings, transport, owns_runtime)
    server: MCPServer[Door] = MCPServer(
        "gumem",
        title="GUMem memory",
        instructions=INSTRUCTIONS,
        version="0.1.0",
        lifespan=door.lifespan,
        log_level="WARNING",
    )
    for tool, hints in TOOLS:
        server.add_tool(tool, annotations=hints)
    for uri, name, description, read in RESOURCES:
        server.resource(uri, name=name, description=description, mime_type="application/json")(read)
    return server


def create_http_app(settings: Settings, runtime: Runtime | None = None) -> Starlette:
    """Streamable HTTP at /mcp behind the API's own key check and body limit (a wrong or
    missing key is a 401 before the MCP layer sees the request); /health is open. Given a
    started `runtime` (tests), the lifespan leaves it be."""
    owned = runtime is None
    rt = runtime or Runtime(settings)
    server = build_server(rt, settings, "http")
    inner = server.streamable_http_app(
        streamable_http_path=MCP_PATH,
        max_request_body_size=settings.max_body_bytes,
        host=settings.host,
    )

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with (
            running(rt, lambda: start_runtime(rt, settings), owned),
            server.session_manager.run(),
        ):
            yield

    routes = [Route("/health", health_page(rt)), *inner.routes]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(BearerAuth, keys=settings.tenants_by_key(), open_paths={"/health"})
    app.add_middleware(AccessLog, routes={"/health", MCP_PATH})  # request ids, no queries
    return app


def run(settings: Settings, transport: Literal["stdio", "http"]) -> None:
    if transport == "stdio":
        server = build_server(Runtime(settings), settings, "stdio", owns_runtime=True)
        server.run("stdio")
        return
    import uvicorn

    uvicorn.run(  # logging as `gumem` configured it (core.logs), no uvicorn access lines
        create_http_app(settings),
        host=settings.host,
        port=settings.port,
        log_config=None,
        log_level="warning",
        access_log=False,
    )
