"""GraphQL types of recall: the MemoryContext a `memory` query answers with and its
MemoryItems, each leading to the Summary, Fact or Message it stands for."""

from __future__ import annotations

from datetime import datetime

import strawberry
from strawberry.types import Info

from api.context import Context
from api.types import Fact, Message, Summary


@strawberry.type
class MemoryItem:
    id: strawberry.ID
    kind: str
    content: str
    score: float
    reason: str
    topic: str | None
    confidence: float | None
    timestamp: datetime | None
    source_fact_ids: list[str]
    source_message_ids: list[str]
    author: str | None = strawberry.field(
        default=None,
        description="Who a Message comes from: in the recent conversation the user, a "
        "speaker's name, assistant, or the event type such as click; for a ranked Message "
        "the name its metadata gives, if any.",
    )
    superseded: bool = strawberry.field(
        default=False, description="A Message carrying a value a later Fact superseded."
    )
    relevant_fact_ids: list[str] = strawberry.field(
        default_factory=list,
        description="For a Summary: its Facts that bear on this query (among the ranked "
        "evidence), best first.",
    )

    @strawberry.field(description="The Summary, when kind is summary.")
    async def summary(self, info: Info[Context, None]) -> Summary | None:
        if self.kind != "summary":
            return None
        found = await info.context.loaders.summary.load(str(self.id))
        return Summary.from_record(found) if found else None

    @strawberry.field(description="The Fact, when kind is fact.")
    async def fact(self, info: Info[Context, None]) -> Fact | None:
        if self.kind != "fact":
            return None
        found = await info.context.loaders.fact.load(str(self.id))
        return Fact.from_record(found) if found else None

    @strawberry.field(description="The Message, when kind is message.")
    async def message(self, info: Info[Context, None]) -> Message | None:
        if self.kind != "message":
            return None
        found = await info.context.loaders.message.load(str(self.id))
        return Message.from_record(found) if found else None


@strawberry.type
class MemoryContext:
    query: str
    short_term_context: list[MemoryItem]
    mid_term_context: list[MemoryItem]
    long_term_user_context: list[MemoryItem]
    formatted_context: str
    time_window_start: datetime | None
    time_window_end: datetime | None
