"""The MCP server's tools and resources (doors/mcp_server.py registers them): module-level
functions over the service layer, as the GraphQL resolvers are (service.memory.Memory and
service.erasure: the same validation, tenancy, limits and audit records). What a request
needs of the server comes through its MCP Context: the `Door` the server's lifespan yields
(the runtime, the settings, the transport that says where the tenant comes from)."""

from __future__ import annotations

import json
import logging
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from datetime import datetime
from functools import wraps
from typing import Annotated, Any, Literal, ParamSpec, TypeVar, cast

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

from core.errors import AuthError, GumemError, InputError, NotFoundError
from core.inputs import BatchError, Page, parse_as_of, parse_ident
from core.settings import Settings
from doors.mcp_views import (
    fact_json,
    impact_json,
    iso,
    message_json,
    plain,
    recall_json,
    summary_json,
    topic_json,
    trace_json,
)
from service import erasure
from service.memory import Memory
from service.runtime import Runtime
from web.auth import tenant_for
from web.lifespan import running

log = logging.getLogger(__name__)
P = ParamSpec("P")
R = TypeVar("R")
V = TypeVar("V")
MAX_PAGE = 200  # as GraphQL's list fields


class Door:
    """What the tools need of the server they answer in: the runtime whose Memory they
    call, and where a request's tenant comes from (stdio: GUMEM_MCP_TENANT; streamable
    HTTP: the request's API key, one of GUMEM_API_KEYS). With `owns_runtime` (stdio) the
    server's lifespan starts and closes the runtime."""

    def __init__(
        self,
        runtime: Runtime,
        settings: Settings,
        transport: Literal["stdio", "http"],
        owns_runtime: bool = False,
    ) -> None:
        self.runtime = runtime
        self.settings = settings
        self.transport = transport
        self.owns_runtime = owns_runtime
        self.keys = settings.tenants_by_key()

    def tenant(self, ctx: Context) -> str:
        if self.transport == "stdio":
            return self.settings.mcp_tenant
        headers = ctx.headers or {}
        found = tenant_for(headers.get("authorization"), self.keys)
        if found is None:  # the middleware refused it already; never fall back to a default
            raise AuthError("unauthenticated: send Authorization: Bearer <key>")
        return found

    @asynccontextmanager
    async def lifespan(self, _: MCPServer[Door]) -> AsyncIterator[Door]:
        """The server's lifespan: yields this Door to every request's Context; with
        `owns_runtime`, inside it (the stdio session: the extraction processes the runtime
        spawns never write to the protocol's stdout) the runtime is started and closed."""
        async with running(self.runtime, self._start, self.owns_runtime):
            yield self

    async def _start(self) -> None:
        await start_runtime(self.runtime, self.settings)
        log.info("MCP over stdio: tenant %r (GUMEM_MCP_TENANT)", self.settings.mcp_tenant)


async def start_runtime(runtime: Runtime, settings: Settings) -> None:
    """An MCP server's start of the runtime it owns: the runtime, its foreground work and,
    with GUMEM_RUN_WORKER, the worker."""
    await runtime.start()
    runtime.start_foreground()
    if settings.run_worker:
        runtime.start_worker()


def _door(ctx: Context) -> Door:
    return cast(Door, ctx.request_context.lifespan_context)


def _memory(ctx: Context) -> Memory:
    return _door(ctx).runtime.memory


def _tenant(ctx: Context) -> str:
    return _door(ctx).tenant(ctx)


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


def _parse_time(value: str | None, field: str) -> datetime | None:
    """An ISO 8601 argument: none when absent, else aware and as strict as a timestamp."""
    if value is None or not value.strip():
        return None
    try:
        ts = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise InputError(field, "an ISO 8601 date-time with a UTC offset") from None
    return parse_as_of(ts, field)


@contextmanager
def _answered_as(error: type[Exception]) -> Iterator[None]:
    """GUMem's errors reach the model as `error("CODE: message")` (messages name fields,
    never quote content); anything else but `error` itself is logged by type and frames
    only and answered 'internal error'."""
    try:
        yield
    except GumemError as exc:
        raise error(f"{exc.code}: {exc}") from None
    except error:
        raise
    except Exception as exc:
        log.error(
            "unexpected error: %s\n%s",
            type(exc).__name__,
            "".join(traceback.format_tb(exc.__traceback__)),
        )
        raise error("INTERNAL: internal error") from None


def _guarded(fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
    """A tool whose errors are answered as ToolErrors (`_answered_as`)."""

    @wraps(fn)
    async def run(*args: P.args, **kwargs: P.kwargs) -> R:
        with _answered_as(ToolError):
            return await fn(*args, **kwargs)

    return run


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
    r = await _memory(ctx).recall(
        _tenant(ctx),
        user_id,
        query,
        session_id=session_id,
        now=_parse_time(now, "now"),
        limit=limit,
        as_of=_parse_time(as_of, "as_of"),
    )
    return recall_json(r)


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
        res = await _memory(ctx).add_messages(_tenant(ctx), items)
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
    t = await _memory(ctx).trace(_tenant(ctx), id)
    if t is None:
        raise NotFoundError(f"nothing to trace for id {id!r}")
    out: dict[str, Any] = plain(trace_json(t))
    return out


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
    found = await _memory(ctx).topics(_tenant(ctx), user_id, Page.of(limit, offset, MAX_PAGE))
    return {"topics": [topic_json(t) for t in found]}


@_guarded
async def deletion_impact(
    message_id: Annotated[str, Field(description="The Message id to delete.")],
    ctx: Context,
) -> dict[str, Any]:
    """Dry run of `delete_message`: which Facts would be removed, which Summaries rebuilt
    (and their new text) or retired, and which topics and entities would be left
    empty. Changes nothing; call it and show the user before deleting."""
    found = await erasure.impact(_memory(ctx), _tenant(ctx), message_id)
    return impact_json(found)


@_guarded
async def delete_message(
    message_id: Annotated[str, Field(description="The Message id to delete.")],
    ctx: Context,
) -> dict[str, Any]:
    """Delete one Message and everything that depended only on it (its Facts, Summary
    text built from them), rebuilding what remains. Only when the user asks to forget
    something they said; it is recorded in the audit log (ids and counts, no content)."""
    found, counts = await erasure.delete_message(_memory(ctx), _tenant(ctx), message_id)
    return {"impact": impact_json(found), "counts": plain(counts)}


@_guarded
async def forget_user(
    user_id: Annotated[str, Field(description="The end user to erase.")],
    ctx: Context,
) -> dict[str, Any]:
    """Erase everything GUMem holds about one user (messages, facts, summaries, topics)
    and verify nothing remains. Irreversible: only on the user's explicit request to be
    forgotten. Recorded in the audit log (ids and counts, no content)."""
    counts = await erasure.forget_user(_memory(ctx), _tenant(ctx), user_id)
    return {"userId": user_id, "counts": plain(counts), "remaining": counts["remaining"]}


async def _read(
    ctx: Context,
    kind: str,
    fetch: Callable[[str, list[str]], Awaitable[Mapping[str, V]]],
    shown: Callable[[V], dict[str, object]],
    node_id: str,
) -> str:
    with _answered_as(ResourceError):
        nid = parse_ident(node_id, "id")
        found = await fetch(_tenant(ctx), [nid])
    record = found.get(nid)
    if record is None:  # another tenant's id is not found either
        raise ResourceNotFoundError(f"NOT_FOUND: no {kind} {node_id!r}")
    return json.dumps(shown(record), ensure_ascii=False, default=iso)


async def message_resource(id: str, ctx: Context) -> str:
    return await _read(ctx, "message", _memory(ctx).messages_by_ids, message_json, id)


async def fact_resource(id: str, ctx: Context) -> str:
    return await _read(ctx, "fact", _memory(ctx).facts_by_ids, fact_json, id)


async def summary_resource(id: str, ctx: Context) -> str:
    return await _read(ctx, "summary", _memory(ctx).summaries_by_ids, summary_json, id)


Tool = Callable[..., Awaitable[dict[str, Any]]]
# every tool with its annotations, in the order the server lists them
TOOLS: tuple[tuple[Tool, ToolAnnotations], ...] = (
    (add_messages, ToolAnnotations(title="Remember messages", idempotent_hint=True)),
    (recall, ToolAnnotations(title="Recall memory", read_only_hint=True)),
    (trace, ToolAnnotations(title="Trace provenance", read_only_hint=True)),
    (list_topics, ToolAnnotations(title="List topics", read_only_hint=True)),
    (deletion_impact, ToolAnnotations(title="Preview a deletion", read_only_hint=True)),
    (
        delete_message,
        ToolAnnotations(title="Delete a message", destructive_hint=True, idempotent_hint=True),
    ),
    (forget_user, ToolAnnotations(title="Forget a user", destructive_hint=True)),
)
# every resource: (URI template, name, description, the function that reads it)
RESOURCES: tuple[tuple[str, str, str, Callable[[str, Context], Awaitable[str]]], ...] = (
    (
        "gumem://message/{id}",
        "message",
        "A stored Message or app event by id, as JSON.",
        message_resource,
    ),
    (
        "gumem://fact/{id}",
        "fact",
        "A Fact by id (f_...), with its source Messages, as JSON.",
        fact_resource,
    ),
    (
        "gumem://summary/{id}",
        "summary",
        "A topic Summary by id (s_...), as JSON.",
        summary_resource,
    ),
)
