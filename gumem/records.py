"""The stored records the service hands on (built in graph/records.py), for api/ and MCP,
which do not reach graph/ themselves."""

from graph.records import (
    FactVersions,
    MessageStatus,
    StoredFact,
    StoredMessage,
    StoredSummary,
    StoredTopic,
)

__all__ = [
    "FactVersions",
    "MessageStatus",
    "StoredFact",
    "StoredMessage",
    "StoredSummary",
    "StoredTopic",
]
