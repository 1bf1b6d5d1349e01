"""GraphQL inputs and results of the mutations: the MessageInput addMessages takes, its
AddMessagesResult (with an ItemError per rejected item), and runMaintenance's result."""

from __future__ import annotations

import strawberry
from strawberry.scalars import JSON

from core.inputs import MessageItem


@strawberry.input
class MessageInput(MessageItem):
    """A MessageItem as GraphQL declares it: the service checks it as it is."""

    id: strawberry.ID
    metadata: JSON | None = None


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

    @staticmethod
    def refused(errors: list[ItemError]) -> AddMessagesResult:
        """The answer to a batch refused whole: nothing accepted, these errors."""
        return AddMessagesResult(accepted=[], duplicates=[], errors=errors, processed=0)


@strawberry.type
class MaintenanceResult:
    examined: int
    deprioritized: int
    archived: int
