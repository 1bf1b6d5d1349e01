"""What every adapter hands its framework for one recalled item: text plus metadata."""

from __future__ import annotations

from typing import Any

from gumem.client_types import MemoryContext, MemoryItem


def parts(mem: MemoryContext) -> list[tuple[str, MemoryItem]]:
    """The recalled items in the order GUMem ranks them, each with its part of the context."""
    return [
        *(("short_term", i) for i in mem.short_term_context),
        *(("mid_term", i) for i in mem.mid_term_context),
        *(("long_term", i) for i in mem.long_term_user_context),
    ]


def item_metadata(it: MemoryItem, part: str) -> dict[str, Any]:
    """An item's id, kind, score, topic and sources (pass an id to GUMem's `trace`)."""
    return {
        "id": it.id,
        "kind": it.kind,
        "part": part,
        "score": it.score,
        "reason": it.reason,
        "topic": it.topic,
        "timestamp": it.timestamp.isoformat() if it.timestamp else None,
        "source_fact_ids": it.source_fact_ids,
        "source_message_ids": it.source_message_ids,
    }
