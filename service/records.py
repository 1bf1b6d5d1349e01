"""The stored records the service hands on (built in graph/records.py), for api/ and MCP,
which do not reach graph/ themselves."""

from graph.records import (
    FactVersions,
    MessageStatus,
    StoredEntity,
    StoredFact,
    StoredMessage,
    StoredSummary,
    StoredTopic,
)

__all__ = [
    "FactVersions",
    "MessageStatus",
    "StoredEntity",
    "StoredFact",
    "StoredMessage",
    "StoredSummary",
    "StoredTopic",
]
