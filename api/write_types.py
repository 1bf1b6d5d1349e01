"""GraphQL inputs and results of the mutations: the MessageInput addMessages takes, its
AddMessagesResult (with an ItemError per rejected item), and runMaintenance's result."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from core.inputs import MessageItem


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
    metadata: JSON | None = None

    def to_item(self) -> MessageItem:
        return MessageItem(
            id=str(self.id), user_id=self.user_id, session_id=self.session_id, role=self.role,
            content=self.content, timestamp=self.timestamp, event_type=self.event_type,
            page=self.page, metadata=self.metadata,
        )  # fmt: skip


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
    timed_out: bool = strawberry.field(
        default=False,
        description="With wait (async mode): some of the batch's Messages were still pending"
        " when the wait ended (its bound passed, or Neo4j stopped answering); ask"
        " processing(ids) later. Otherwise false.",
    )


@strawberry.type
class MaintenanceResult:
    examined: int
    deprioritized: int
    archived: int
