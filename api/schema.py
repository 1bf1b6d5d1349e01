"""The GraphQL schema agents code against. Names here are a contract: keep them stable."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any, NewType

import strawberry
from strawberry.extensions import MaxAliasesLimiter, MaxTokensLimiter, QueryDepthLimiter
from strawberry.types import Info

from api.context import Context
from gumem.inputs import BatchError
from gumem.settings import Settings

JSON = strawberry.scalar(
    NewType("JSON", object),
    description="A JSON value (metadata objects, evidence maps).",
    serialize=lambda v: v,
    parse_value=lambda v: v,
)


def _ctx(info: Info[Context, None]) -> Context:
    return info.context


@strawberry.type
class Health:
    ok: bool
    neo4j: str


@strawberry.type
class Message:
    id: strawberry.ID
    user_id: str
    session_id: str
    role: str
    content: str
    timestamp: datetime
    event_type: str
    page: str | None
    metadata: JSON  # type: ignore[valid-type]
    lang: str | None
    status: str

    @staticmethod
    def from_row(row: dict[str, Any]) -> Message:
        return Message(
            id=strawberry.ID(row["message_id"]), user_id=row["user_id"],
            session_id=row["session_id"], role=row["role"], content=row["content"],
            timestamp=row["timestamp"], event_type=row.get("event_type") or "message",
            page=row.get("page"), metadata=json.loads(row.get("metadata_json") or "{}"),
            lang=row.get("lang"), status=row.get("status") or "pending",
        )


@strawberry.input
class MessageInput:
    id: strawberry.ID
    user_id: str
    session_id: str
    role: str
    content: str
    timestamp: str
    event_type: str | None = "message"
    page: str | None = None
    metadata: JSON | None = None  # type: ignore[valid-type]

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": str(self.id), "userId": self.user_id, "sessionId": self.session_id,
            "role": self.role, "content": self.content, "timestamp": self.timestamp,
            "eventType": self.event_type, "page": self.page, "metadata": self.metadata,
        }


@strawberry.type
class ItemError:
    index: int | None
    field: str
    reason: str


@strawberry.type
class AddMessagesResult:
    accepted: list[strawberry.ID]
    duplicates: list[strawberry.ID]
    errors: list[ItemError]
    processed: int


@strawberry.type
class Query:
    @strawberry.field
    async def health(self, info: Info[Context, None]) -> Health:
        version = await _ctx(info).memory.server_version()
        return Health(ok=True, neo4j=version)

    @strawberry.field
    async def message(self, info: Info[Context, None], id: strawberry.ID) -> Message | None:
        ctx = _ctx(info)
        row = await ctx.memory.message(ctx.tenant, str(id))
        return Message.from_row(row) if row else None


@strawberry.type
class Mutation:
    @strawberry.mutation(name="addMessages")
    async def add_messages(
        self, info: Info[Context, None], messages: list[MessageInput]
    ) -> AddMessagesResult:
        ctx = _ctx(info)
        try:
            res = await ctx.memory.add_messages(ctx.tenant, [m.as_dict() for m in messages])
        except BatchError as exc:
            errs = [ItemError(index=e.index, field=e.field, reason=e.reason) for e in exc.errors]
            return AddMessagesResult(accepted=[], duplicates=[], errors=errs, processed=0)
        return AddMessagesResult(
            accepted=[strawberry.ID(i) for i in res.accepted],
            duplicates=[strawberry.ID(i) for i in res.duplicates],
            errors=[], processed=res.processed,
        )


def build_schema(settings: Settings) -> strawberry.Schema:
    return strawberry.Schema(
        query=Query,
        mutation=Mutation,
        extensions=[
            QueryDepthLimiter(max_depth=settings.max_query_depth),
            MaxTokensLimiter(max_token_count=settings.max_query_tokens),
            MaxAliasesLimiter(max_alias_count=30),
        ],
    )
