"""GUMem's Python client: `Client` (sync, the response's dicts) and `AsyncClient` (typed
records, retries) over the GraphQL API, the records they return, the chat-history importer
(`gumem import`) and the framework adapters (gumem.adapters, extras). It never imports the
server; GUMem's errors (core.errors) are what it raises."""

from core.errors import AuthError, GumemError, InputError, ServerUnreachable
from gumem.client import AsyncClient, Client
from gumem.client_types import (
    AddMessagesResult,
    DeletionImpact,
    DeletionReport,
    ForgetReport,
    ItemError,
    MemoryContext,
    MemoryItem,
    Message,
    Topic,
    Trace,
    TraceEdge,
    TraceNode,
    turns_to_messages,
)

__all__ = [
    "AddMessagesResult",
    "AsyncClient",
    "AuthError",
    "Client",
    "DeletionImpact",
    "DeletionReport",
    "ForgetReport",
    "GumemError",
    "InputError",
    "ItemError",
    "MemoryContext",
    "MemoryItem",
    "Message",
    "ServerUnreachable",
    "Topic",
    "Trace",
    "TraceEdge",
    "TraceNode",
    "turns_to_messages",
]
