"""`gumem mcp`: GUMem as a Model Context Protocol server (the official `mcp` SDK).

The tools call the same service layer as the GraphQL resolvers (service.memory.Memory and
service.erasure): the same validation, tenancy, limits and audit records. Over stdio the
tenant is GUMEM_MCP_TENANT (one local agent, one tenant; by default `dev`, the tenant of the
key `gumem serve` generates, so GraphiQL with that key shows what the agent stored); over
streamable HTTP every request needs `Authorization: Bearer <key>` with a key of
GUMEM_API_KEYS, checked by the same middleware as /graphql, and the key names the tenant.
"""

from __future__ import annotations

import json
import logging
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager
from datetime import datetime
from functools import wraps
from typing import Annotated, Any, Literal, ParamSpec, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from core.errors import AuthError, GumemError, InputError, NotFoundError
from core.inputs import BatchError, parse_as_of, parse_ident
from core.settings import Settings
from doors.mcp_views import fact_json, message_json, summary_json, topic_json, trace_json
from service import erasure
from service.recall import Item, Recall
from service.runtime import Runtime
from web.auth import BearerAuth, tenant_for
from web.edge import AccessLog, BodyLimit

log = logging.getLogger(__name__)
P = ParamSpec("P")
R = TypeVar("R")
V = TypeVar("V")
MCP_PATH = "/mcp"
MAX_PAGE = 200  # as GraphQL's list fields

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


class MessageArg(BaseModel):
    """One message or app event, as GraphQL's MessageInput."""

    id: str = Field(
        description="Your stable id for this message (1-200 of letters, digits, ._:@/+-). "
        "Sending the same id again is a no-op (reported as a duplicate), so retries are safe."
    )
    userId: str = Field(description="The end user this memory belongs to.")
    sessionId: str = Field(description="The conversation or visit this message is part of.")
    role: str = Field(description='"user", "assistant", or "event" for an app event.')
    content: str = Field(description="The text said, or a short description of the event.")
    timestamp: str = Field(description="When it happened, ISO 8601 with a UTC offset.")
    eventType: str = Field(
        default="message",
        description='"message" for chat; for app events one of "search", "filter", "view", '
        '"click", "favorite", "dwell", "skip", "purchase", "tool_call".',
    )
    page: str | None = Field(default=None, description="Where in the app it happened.")
    metadata: dict[str, Any] | None = Field(default=None, description="Any extra JSON.")


def _plain(value: Any) -> Any:
    """JSON-ready: datetimes as ISO strings."""
    return json.loads(json.dumps(value, ensure_ascii=False, default=_iso))


def _iso(value: Any) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    return str(value)


def _item(it: Item, part: str) -> dict[str, Any]:
    return {
        "id": it.id,
        "kind": it.kind,
        "part": part,
        "content": it.content,
        "score": round(it.score, 4),
        "reason": it.reason,
        "topic": it.topic,
        "confidence": it.confidence,
        "timestamp": it.timestamp.isoformat() if it.timestamp else None,
        "author": it.author,
        "superseded": it.superseded,
        "sourceFactIds": it.source_fact_ids,
        "sourceMessageIds": it.source_message_ids,
    }


def _impact(i: erasure.Impact) -> dict[str, Any]:
    p = i.plan
    return {
        "messageId": p.message_id,
        "removedFacts": p.removed_facts,
        "keptFacts": p.kept_facts,
        "restoredFacts": p.restored_facts,
        "rebuiltSummaries": i.rebuilt_summaries,
        "retiredSummaries": i.retired_summaries,
        "purgedVersions": i.purged_versions,
        "newSummaries": [s.draft.content for s in i.rebuilt],
        "orphanEntities": p.orphan_entities,
        "orphanTopics": i.orphan_topics,
    }


def _parse_time(value: str | None, field: str) -> datetime | None:
    """An ISO 8601 argument: none when absent, else aware and as strict as a timestamp."""
    if value is None or not value.strip():
        return None
    try:
        ts = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise InputError(field, "an ISO 8601 date-time with a UTC offset") from None
    return parse_as_of(ts, field)


def _recall_json(r: Recall) -> dict[str, Any]:
    items = [
        *(_item(i, "short_term") for i in r.short_term),
        *(_item(i, "mid_term") for i in r.mid_term),
        *(_item(i, "long_term") for i in r.long_term),
    ]
    return {
        "query": r.query,
        "formattedContext": r.formatted,
        "ids": [i["id"] for i in items],
        "items": items,
        "timeWindowStart": r.window.start.isoformat() if r.window else None,
        "timeWindowEnd": r.window.end.isoformat() if r.window else None,
    }


def _add_recall(server: MCPServer[Any], runtime: Runtime, tenant: Callable[[Context], str]) -> None:
    @server.tool(annotations=ToolAnnotations(title="Recall memory", read_only_hint=True))
    @_guarded
    async def recall(
        user_id: Annotated[str, Field(description="The end user whose memory to search.")],
        query: Annotated[
            str,
            Field(description="The user's request in their own words (any language)."),
        ],
        ctx: Context,
        session_id: Annotated[
            str | None,
            Field(description="The current session: its recent turns come first."),
        ] = None,
        now: Annotated[
            str | None,
            Field(
                description="The current time, ISO 8601 with offset; resolves 'yesterday', "
                "'last week'. Default: the server's clock."
            ),
        ] = None,
        limit: Annotated[
            int | None, Field(description="At most this many items (1-50).", ge=1, le=50)
        ] = None,
        as_of: Annotated[
            str | None,
            Field(
                description="Recall the memory as it stood at this time (ISO 8601 with "
                "offset): only what was known then, e.g. to answer 'what did you know about "
                "me last month?'. Default: the memory as it is now."
            ),
        ] = None,
    ) -> dict[str, Any]:
        """What this user's memory says about the request: call it before answering
        whenever the user refers to something earlier or their preferences, budget,
        constraints or plans matter. Returns `formattedContext` (ready to put in your
        prompt: summaries, facts and recent messages, each line with its source ids) and
        `items`, each with `id`, `kind` (summary/fact/message), `content` and the ids of the
        Facts and Messages it came from. Pass an id to `trace` to see its evidence."""
        r = await runtime.memory.recall(
            tenant(ctx),
            user_id,
            query,
            session_id=session_id,
            now=_parse_time(now, "now"),
            limit=limit,
            as_of=_parse_time(as_of, "as_of"),
        )
        return _recall_json(r)


def _guarded(fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """GUMem's errors reach the model as `CODE: message` (messages name fields, never quote
    content); anything else is logged by type and frames only and answered 'internal error'."""

    @wraps(fn)
    async def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return await fn(*args, **kwargs)
        except GumemError as exc:
            raise ToolError(f"{exc.code}: {exc}") from None
        except ToolError:
            raise
        except Exception as exc:
            log.error(
                "unexpected error: %s\n%s",
                type(exc).__name__,
                "".join(traceback.format_tb(exc.__traceback__)),
            )
            raise ToolError("INTERNAL: internal error") from None

    return run


def build_server(
    runtime: Runtime,
    settings: Settings,
    transport: Literal["stdio", "http"],
    owns_runtime: bool = False,
) -> MCPServer[Any]:
    """The MCP server in front of `runtime`'s Memory. With `owns_runtime` (stdio), the
    server's lifespan starts and closes the runtime, inside the stdio session, so the
    extraction processes it spawns never write to the protocol's stdout."""
    keys = settings.tenants_by_key()

    def tenant(ctx: Context) -> str:
        if transport == "stdio":
            return settings.mcp_tenant
        headers = ctx.headers or {}
        found = tenant_for(headers.get("authorization"), keys)
        if found is None:  # the middleware refused it already; never fall back to a default
            raise AuthError("unauthenticated: send Authorization: Bearer <key>")
        return found

    @asynccontextmanager
    async def lifespan(_: MCPServer[Any]) -> AsyncIterator[None]:
        await runtime.start()
        log.info("MCP over stdio: tenant %r (GUMEM_MCP_TENANT)", settings.mcp_tenant)
        runtime.start_foreground()
        if settings.run_worker:
            runtime.start_worker()
        try:
            yield
        finally:
            await runtime.close()

    server: MCPServer[Any] = MCPServer(
        "gumem",
        title="GUMem memory",
        instructions=INSTRUCTIONS,
        version="0.1.0",
        lifespan=lifespan if owns_runtime else None,
        log_level="WARNING",
    )

    @server.tool(
        annotations=ToolAnnotations(title="Remember messages", idempotent_hint=True),
    )
    @_guarded
    async def add_messages(
        messages: Annotated[
            list[MessageArg], Field(description="The new messages and events, oldest first.")
        ],
        ctx: Context,
    ) -> dict[str, Any]:
        """Store new chat messages and app events so GUMem can remember them. Call it after
        each turn with what was said (user and assistant) and with app events (searches,
        filters, views). GUMem extracts Facts and updates topic Summaries from them. Ids
        already stored are reported under `duplicates` and not stored twice. A batch with
        a bad item is rejected whole: `errors` names each item's index, field and reason."""
        items = [m.model_dump() for m in messages]
        try:
            res = await runtime.memory.add_messages(tenant(ctx), items)
        except BatchError as exc:
            errs = [{"index": e.index, "field": e.field, "reason": e.reason} for e in exc.errors]
            return {"accepted": [], "duplicates": [], "processed": 0, "errors": errs}
        except InputError as exc:
            err = {"index": exc.index, "field": exc.field, "reason": exc.reason}
            return {"accepted": [], "duplicates": [], "processed": 0, "errors": [err]}
        return {
            "accepted": res.accepted,
            "duplicates": res.duplicates,
            "processed": res.processed,
            "errors": [],
        }

    _add_recall(server, runtime, tenant)

    @server.tool(annotations=ToolAnnotations(title="Trace provenance", read_only_hint=True))
    @_guarded
    async def trace(
        id: Annotated[
            str,
            Field(description="A Summary (s_...), Fact (f_...) or Message id from recall."),
        ],
        ctx: Context,
    ) -> dict[str, Any]:
        """Why GUMem believes something: the provenance of a Summary, Fact or Message, both
        ways (a Summary's Facts and their source Messages; a Message's Facts and the
        Summaries built on them; older and newer versions). Use it to check a recalled
        item before relying on it, or to answer "why do you think that?". Also returns a
        Cypher query to look at the same graph in Neo4j Browser."""
        t = await runtime.memory.trace(tenant(ctx), id)
        if t is None:
            raise NotFoundError(f"nothing to trace for id {id!r}")
        out: dict[str, Any] = _plain(trace_json(t))
        return out

    @server.tool(annotations=ToolAnnotations(title="List topics", read_only_hint=True))
    @_guarded
    async def list_topics(
        user_id: Annotated[str, Field(description="The end user.")],
        ctx: Context,
        limit: Annotated[int, Field(description="Page size (1-200).", ge=1, le=MAX_PAGE)] = 50,
        offset: Annotated[int, Field(description="Topics to skip.", ge=0)] = 0,
    ) -> dict[str, Any]:
        """The topics GUMem has filed this user's memory under (e.g. what they shop for,
        their health, their travel), each with how many Summaries and Facts it holds. Use it
        for an overview of what is known about the user; use `recall` to answer a request."""
        found = await runtime.memory.topics(tenant(ctx), user_id, limit, offset)
        return {"topics": [topic_json(t) for t in found]}

    @server.tool(annotations=ToolAnnotations(title="Preview a deletion", read_only_hint=True))
    @_guarded
    async def deletion_impact(
        message_id: Annotated[str, Field(description="The Message id to delete.")],
        ctx: Context,
    ) -> dict[str, Any]:
        """Dry run of `delete_message`: which Facts would be removed, which Summaries rebuilt
        (and their new text) or retired, and which topics and entities would be left
        empty. Changes nothing; call it and show the user before deleting."""
        found = await erasure.impact(runtime.memory, tenant(ctx), message_id)
        return _impact(found)

    @server.tool(
        annotations=ToolAnnotations(
            title="Delete a message", destructive_hint=True, idempotent_hint=True
        )
    )
    @_guarded
    async def delete_message(
        message_id: Annotated[str, Field(description="The Message id to delete.")],
        ctx: Context,
    ) -> dict[str, Any]:
        """Delete one Message and everything that depended only on it (its Facts, Summary
        text built from them), rebuilding what remains. Only when the user asks to forget
        something they said; it is recorded in the audit log (ids and counts, no content)."""
        found, counts = await erasure.delete_message(runtime.memory, tenant(ctx), message_id)
        return {"impact": _impact(found), "counts": _plain(counts)}

    @server.tool(annotations=ToolAnnotations(title="Forget a user", destructive_hint=True))
    @_guarded
    async def forget_user(
        user_id: Annotated[str, Field(description="The end user to erase.")],
        ctx: Context,
    ) -> dict[str, Any]:
        """Erase everything GUMem holds about one user (messages, facts, summaries, topics)
        and verify nothing remains. Irreversible: only on the user's explicit request to be
        forgotten. Recorded in the audit log (ids and counts, no content)."""
        counts = await erasure.forget_user(runtime.memory, tenant(ctx), user_id)
        return {"userId": user_id, "counts": _plain(counts), "remaining": counts["remaining"]}

    async def _read(
        ctx: Context,
        kind: str,
        fetch: Callable[[str, list[str]], Awaitable[Mapping[str, V]]],
        shown: Callable[[V], dict[str, object]],
        node_id: str,
    ) -> str:
        try:
            nid = parse_ident(node_id, "id")
            found = await fetch(tenant(ctx), [nid])
        except GumemError as exc:
            raise ResourceError(f"{exc.code}: {exc}") from None
        except Exception as exc:
            log.error(
                "unexpected error: %s\n%s",
                type(exc).__name__,
                "".join(traceback.format_tb(exc.__traceback__)),
            )
            raise ResourceError("INTERNAL: internal error") from None
        record = found.get(nid)
        if record is None:  # another tenant's id is not found either
            raise ResourceNotFoundError(f"NOT_FOUND: no {kind} {node_id!r}")
        return json.dumps(shown(record), ensure_ascii=False, default=_iso)

    @server.resource(
        "gumem://message/{id}",
        name="message",
        description="A stored Message or app event by id, as JSON.",
        mime_type="application/json",
    )
    async def message_resource(id: str, ctx: Context) -> str:
        return await _read(ctx, "message", runtime.memory.messages_by_ids, message_json, id)

    @server.resource(
        "gumem://fact/{id}",
        name="fact",
        description="A Fact by id (f_...), with its source Messages, as JSON.",
        mime_type="application/json",
    )
    async def fact_resource(id: str, ctx: Context) -> str:
        return await _read(ctx, "fact", runtime.memory.facts_by_ids, fact_json, id)

    @server.resource(
        "gumem://summary/{id}",
        name="summary",
        description="A topic Summary by id (s_...), as JSON.",
        mime_type="application/json",
    )
    async def summary_resource(id: str, ctx: Context) -> str:
        return await _read(ctx, "summary", runtime.memory.summaries_by_ids, summary_json, id)

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
        if owned:
            await rt.start()
            rt.start_foreground()
            if settings.run_worker:
                rt.start_worker()
        try:
            async with server.session_manager.run():
                yield
        finally:
            if owned:
                await rt.close()

    async def health(request: Request) -> Response:
        return JSONResponse(rt.health())

    app = Starlette(routes=[Route("/health", health), *inner.routes], lifespan=lifespan)
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
