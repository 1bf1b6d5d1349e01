"""DataLoaders: nested traversal costs one query per level, not one per node.

They batch the service's reads by id (``Memory.*_by_ids`` and friends), which return the
stored records of ``service.records``; api/ never reaches the database itself."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TypeVar

from strawberry.dataloader import DataLoader

from service.memory import Memory
from service.records import FactVersions, StoredEntity, StoredFact, StoredMessage, StoredSummary

V = TypeVar("V")


def _loader(
    fetch: Callable[[list[str]], Awaitable[Mapping[str, V]]], default: V
) -> DataLoader[str, V]:
    async def load(keys: list[str]) -> list[V]:
        found = await fetch(list(dict.fromkeys(keys)))
        return [found.get(k, default) for k in keys]

    return DataLoader(load_fn=load)


NO_IDS: list[str] = []


class Loaders:
    """One set per request, bound to the caller's tenant."""

    def __init__(self, memory: Memory, tenant: str) -> None:
        m = memory
        self.message: DataLoader[str, StoredMessage | None] = _loader(
            lambda ids: m.messages_by_ids(tenant, ids), None
        )
        self.fact: DataLoader[str, StoredFact | None] = _loader(
            lambda ids: m.facts_by_ids(tenant, ids), None
        )
        self.summary: DataLoader[str, StoredSummary | None] = _loader(
            lambda ids: m.summaries_by_ids(tenant, ids), None
        )
        self.entity: DataLoader[str, StoredEntity | None] = _loader(
            lambda ids: m.entities_by_ids(tenant, ids), None
        )
        self.facts_of_entity = _loader(lambda ids: m.facts_of_entities(tenant, ids), NO_IDS)
        self.facts_of_message = _loader(lambda ids: m.facts_of_messages(tenant, ids), NO_IDS)
        self.summaries_of_fact = _loader(lambda ids: m.summaries_of_facts(tenant, ids), NO_IDS)
        self.fact_versions: DataLoader[str, FactVersions | None] = _loader(
            lambda ids: m.fact_versions(tenant, ids), None
        )
        self.active_summaries_of_topic = _loader(
            lambda ids: m.summaries_of_topics(tenant, ids, False), NO_IDS
        )
        self.all_summaries_of_topic = _loader(
            lambda ids: m.summaries_of_topics(tenant, ids, True), NO_IDS
        )

    async def many(self, loader: DataLoader[str, V | None], ids: list[str]) -> list[V]:
        return [x for x in await loader.load_many(ids) if x is not None]
