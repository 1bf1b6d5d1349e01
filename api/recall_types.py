"""GraphQL types of recall: the MemoryContext a `memory` query answers with and its
MemoryItems, each leading to the Summary, Fact or Message it stands for."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import strawberry
from strawberry.types import Info

from api.context import Context
from api.mapping import load_one, mapped
from api.types import Fact, Message, Summary
from core.wire import ItemFields
from service.recall import Recall


def _stands_for(kind: str, build: Callable[[Any], object]) -> Any:
    """The field leading to the `kind` (summary, fact or message) an item stands for, loaded
    by the loader of that name and built by `build`; null for an item of another kind."""

    async def resolve(root: MemoryItem, info: Info[Context, None]) -> object:
        if root.kind != kind:
            return None
        return await load_one(getattr(info.context.loaders, kind), str(root.id), build)

    description = f"The {kind.title()}, when kind is {kind}."
    return strawberry.field(resolver=resolve, description=description)


@strawberry.type
class MemoryItem(ItemFields):
    id: strawberry.ID
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

    summary: Summary | None = _stands_for("summary", Summary.from_record)
    fact: Fact | None = _stands_for("fact", Fact.from_record)
    message: Message | None = _stands_for("message", Message.from_record)


@strawberry.type
class MemoryContext:
    query: str
    short_term_context: list[MemoryItem]
    mid_term_context: list[MemoryItem]
    long_term_user_context: list[MemoryItem]
    formatted_context: str
    time_window_start: datetime | None
    time_window_end: datetime | None

    @staticmethod
    def from_recall(r: Recall) -> MemoryContext:
        return MemoryContext(
            query=r.query,
            short_term_context=[mapped(MemoryItem, i) for i in r.short_term],
            mid_term_context=[mapped(MemoryItem, i) for i in r.mid_term],
            long_term_user_context=[mapped(MemoryItem, i) for i in r.long_term],
            formatted_context=r.formatted,
            time_window_start=r.window.start if r.window else None,
            time_window_end=r.window.end if r.window else None,
        )
