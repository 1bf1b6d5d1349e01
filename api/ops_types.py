"""GraphQL types for operating the service: health (the worker's state too), where asked
Messages stand in processing, and the Messages whose processing failed for good."""

from __future__ import annotations

from datetime import datetime

import strawberry

from api.mapping import mapped
from core import wire
from service.records import Processing


@strawberry.type(description="The background worker, as /health reports it.")
class WorkerHealth:
    state: str  # running / restarting / stopped
    restarts: int
    last_error: str | None
    last_success: datetime | None
    pending_users: int | None


@strawberry.type
class Health:
    ok: bool
    neo4j: str
    worker: WorkerHealth | None = None


@strawberry.type(description="A Message whose processing failed: why, how often, when.")
class FailedMessage(wire.FailedMessage):
    id: strawberry.ID


@strawberry.type(description="Where one asked Message stands in processing (no content).")
class MessageProcessing:
    id: strawberry.ID
    status: str = strawberry.field(
        description="pending, processed or failed; not_found when there is no such Message"
        " of this tenant (of userId, when given)."
    )
    user_id: str | None
    processed_at: datetime | None = strawberry.field(
        description="When it was processed, or failed for good; null while pending."
    )
    attempts: int = strawberry.field(description="Failed processing attempts so far.")
    reason: str | None = strawberry.field(
        description="The last failed attempt's error kind (never content)."
    )
    next_attempt_at: datetime | None = strawberry.field(
        description="Pending after a failed attempt: when it is tried again."
    )

    @staticmethod
    def from_record(p: Processing) -> MessageProcessing:
        m = p.found
        if m is None:
            return MessageProcessing(
                id=strawberry.ID(p.message_id),
                status="not_found",
                user_id=None,
                processed_at=None,
                attempts=0,
                reason=None,
                next_attempt_at=None,
            )
        return mapped(MessageProcessing, m, id=m.message_id)
