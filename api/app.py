"""The ASGI app: GraphQL (with GraphiQL) at /graphql, one driver owned by the lifespan;
/health (liveness), /ready (readiness) and /metrics (Prometheus) for the operator."""

from __future__ import annotations

import json
import logging
from contextlib import AbstractAsyncContextManager
from importlib.resources import files
from pathlib import Path
from typing import Any

import uvicorn
from cross_web import HTTPException
from graphql import GraphQLError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send
from starlette.websockets import WebSocket
from strawberry.asgi import GraphQL
from strawberry.http import GraphQLHTTPResponse
from strawberry.types import ExecutionResult

from api.context import Context
from api.metrics import metrics
from api.schema import build_schema
from core.errors import GumemError
from core.metrics import GRAPHQL_ERRORS
from core.settings import Settings, get_settings
from service.runtime import Runtime
from web.auth import GRAPHQL_PATH, BearerAuth
from web.edge import AccessLog, BodyLimit, error_body
from web.lifespan import health_page, running

log = logging.getLogger(__name__)

# Neo4j Browser's style sheet and guide (`:style` / `:play` URLs, see tools.__main__.browser_conf),
# package data of `cypher`. Browser fetches them from its own origin, the guide with no-cache
# headers (a preflight).
BROWSER_DIR = Path(str(files("cypher").joinpath("browser")))
BROWSER_FILES = {
    "gumem.grass": "text/plain; charset=utf-8",
    "guide.html": "text/html; charset=utf-8",
}
BROWSER_CORS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET, OPTIONS",
    "Access-Control-Allow-Headers": "*",
    "Access-Control-Max-Age": "600",
}


async def browser_file(request: Request) -> Response:
    name = request.url.path.rsplit("/", 1)[-1]
    if request.method == "OPTIONS":
        return Response(status_code=204, headers=BROWSER_CORS)
    return FileResponse(BROWSER_DIR / name, media_type=BROWSER_FILES[name], headers=BROWSER_CORS)


HTTP_CODES = {404: "NOT_FOUND", 405: "METHOD_NOT_ALLOWED"}  # the others strawberry raises: 400
MAX_MESSAGE = 500  # an error message can quote the input (a 400-digit number): cut it


def _int_or_float(text: str) -> int | float:
    """JSON integers: Python's int() refuses one over 4,300 digits (a ValueError, once a
    500); such a number becomes a float (inf), which the field it was sent for then refuses
    by name ("Variable '$limit' ... Int cannot represent ...: inf")."""
    try:
        return int(text)
    except ValueError:
        return float(text)


# Served without a key: they execute nothing and show no tenant's data (README, Production);
# /metrics asks for GUMEM_METRICS_KEY when one is set (api/metrics.py).
OPEN_PATHS = frozenset(
    {"/health", "/ready", "/metrics", *(f"/browser/{name}" for name in BROWSER_FILES)}
)


def format_error(err: GraphQLError) -> dict[str, Any]:
    """Expected errors keep their message and code; anything else is masked."""
    original = err.original_error
    message = err.message
    if len(message) > MAX_MESSAGE:
        message = message[: MAX_MESSAGE - 1] + "…"
    out: dict[str, Any] = {"message": message}
    if err.path:
        out["path"] = err.path
    if original is None or isinstance(original, GraphQLError):
        out["extensions"] = {"code": "GRAPHQL_VALIDATION"}
    elif isinstance(original, GumemError):
        out["extensions"] = {"code": original.code}
    else:
        out["message"] = "internal error"
        out["extensions"] = {"code": "INTERNAL"}
    GRAPHQL_ERRORS.labels(code=out["extensions"]["code"]).inc()
    return out


class GumemGraphQL(GraphQL[Context, None]):
    def __init__(self, runtime: Runtime, settings: Settings) -> None:
        super().__init__(build_schema(settings), graphql_ide="graphiql")
        self.runtime = runtime

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """As strawberry's, but a refused request is answered in JSON, not plain text."""
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        if not self.runtime.started:  # Neo4j not reachable yet (Runtime.start_service)
            GRAPHQL_ERRORS.labels(code="STORAGE_UNAVAILABLE").inc()
            body = error_body("STORAGE_UNAVAILABLE", "storage unavailable: starting, try again")
            response = Response(
                body, status_code=503, media_type="application/json", headers={"retry-after": "5"}
            )
            await response(scope, receive, send)
            return
        try:
            response = await self.run(Request(scope=scope, receive=receive))
        except HTTPException as exc:
            code = HTTP_CODES.get(exc.status_code, "BAD_REQUEST")
            GRAPHQL_ERRORS.labels(code=code).inc()
            response = Response(
                error_body(code, exc.reason),
                status_code=exc.status_code,
                media_type="application/json",
            )
        await response(scope, receive, send)

    def decode_json(self, data: str | bytes) -> object:
        """Bodies that are not UTF-8, nest without end or hold huge numbers are a 400 (or a
        GraphQL error naming the variable), never a 500; so is a body that is no object."""
        try:
            value = json.loads(data, parse_int=_int_or_float)
        except (UnicodeDecodeError, RecursionError) as exc:
            raise json.JSONDecodeError("unreadable request body", "", 0) from exc
        if not isinstance(value, dict | list):
            raise HTTPException(400, "the request body (and `variables`) must be a JSON object")
        return value

    async def get_context(self, request: Request | WebSocket, response: Any) -> Context:
        tenant = request.scope.get("state", {}).get("tenant", "")
        return Context(memory=self.runtime.memory, tenant=tenant)

    async def process_result(
        self, request: Request | WebSocket, result: ExecutionResult
    ) -> GraphQLHTTPResponse:
        data: GraphQLHTTPResponse = {"data": result.data}
        if result.errors:
            data["errors"] = [format_error(e) for e in result.errors]
        return data


def create_app(settings: Settings | None = None, runtime: Runtime | None = None) -> Starlette:
    """The app. Given a started `runtime` (tests, embedding), the lifespan leaves it be."""
    settings = settings or get_settings()
    owned = runtime is None
    rt = runtime or Runtime(settings)

    def lifespan(app: Starlette) -> AbstractAsyncContextManager[None]:
        # serves before Neo4j answers: /ready says when it does
        return running(rt, lambda: rt.start_service(run_worker=settings.run_worker), owned)

    async def ready(request: Request) -> Response:
        """Readiness: 200 once the runtime started and while Neo4j answers, else 503."""
        body = await rt.ready()
        return JSONResponse(body, status_code=200 if body["ready"] else 503)

    async def metrics_page(request: Request) -> Response:
        return await metrics(request, rt, settings.metrics_key.get_secret_value())

    graphql = GumemGraphQL(rt, settings)
    app = Starlette(
        routes=[
            Route("/health", health_page(rt)),
            Route("/ready", ready),
            Route("/metrics", metrics_page),
            Route(GRAPHQL_PATH, graphql, methods=["GET", "POST"]),
            *(
                Route(f"/browser/{name}", browser_file, methods=["GET", "OPTIONS"])
                for name in BROWSER_FILES
            ),
        ],
        lifespan=lifespan,
    )
    # outermost last: the key is checked before any body is read; every request, refused
    # or not, gets its id and one access line
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(BearerAuth, keys=settings.tenants_by_key(), open_paths=OPEN_PATHS)
    app.add_middleware(AccessLog, routes={*OPEN_PATHS, GRAPHQL_PATH})
    return app


def server_config(settings: Settings, app: Starlette | None = None) -> uvicorn.Config:
    """uvicorn as `gumem serve` runs it: logging left as the entry point configured it
    (core.logs), uvicorn's access log off (it writes query strings; AccessLog replaces it)."""
    return uvicorn.Config(
        app or create_app(settings),
        host=settings.host,
        port=settings.port,
        log_config=None,
        log_level=None,
        access_log=False,
    )
