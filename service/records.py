"""The records the service hands on: the stored ones (built in graph/records.py), for api/
and MCP, which do not reach graph/ themselves, and the service's own answers (`AddResult`,
`Processing`)."""

from __future__ import annotations

from dataclasses import dataclass

from graph.records import (
    FactVersions,
    MessageStatus,
    StoredEntity,
    StoredFact,
    StoredMessage,
    StoredSummary,
    StoredTopic,
)


@dataclass(frozen=True)
class AddResult:
    accepted: list[str]
    duplicates: list[str]
    processed: int
    timed_out: bool = False  # waited, and some of the batch was still pending at the end


@dataclass(frozen=True)
class Processing:
    """Where one asked Message id stands: its status record, or None (not found)."""

    message_id: str
    found: MessageStatus | None


__all__ = [
    "AddResult",
    "FactVersions",
    "MessageStatus",
    "Processing",
    "StoredEntity",
    "StoredFact",
    "StoredMessage",
    "StoredSummary",
    "StoredTopic",
]
