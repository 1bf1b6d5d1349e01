"""Records the GraphQL wire carries, declared once: the server's Strawberry types, the
service's recall items and the client's dataclasses extend them, so the three sides cannot
drift apart. The client imports core, never the server.

Plain dataclasses, not frozen (Strawberry subclasses them), with annotations evaluated here
(no postponed annotations) so every subclass resolves them in this module."""

from dataclasses import dataclass
from datetime import datetime


@dataclass
class ItemFields:
    """A recalled item: what it stands for, its text, score, why it was chosen, and when."""

    id: str
    kind: str  # summary / fact / message
    content: str
    score: float
    reason: str
    topic: str | None = None
    confidence: float | None = None
    timestamp: datetime | None = None


@dataclass
class MessageFields:
    """A stored Message as it is shown: who wrote it, where and when, and its text."""

    id: str
    user_id: str
    session_id: str
    role: str
    content: str
    timestamp: datetime
    event_type: str
    page: str | None


@dataclass
class ImpactFields:
    """What deleting one Message removes, keeps, restores and rebuilds (ids; Topics by name)."""

    message_id: str
    removed_facts: list[str]
    kept_facts: list[str]
    restored_facts: list[str]
    rebuilt_summaries: list[str]
    retired_summaries: list[str]
    purged_versions: list[str]
    new_summaries: list[str]
    orphan_entities: list[str]
    orphan_topics: list[str]


@dataclass
class FailedMessage:
    """A Message whose processing failed for good: why, how often, when (no content)."""

    id: str
    user_id: str
    session_id: str
    reason: str
    attempts: int
    last_attempt_at: datetime | None
    timestamp: datetime
