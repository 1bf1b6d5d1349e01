"""DataLoaders: nested traversal costs one query per level, not one per node.

They batch the service's reads by id (``Memory.*_by_ids`` and friends); api/ never reaches
the database itself."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from strawberry.dataloader import DataLoader

from gumem.service import Memory


def _loader(
    fetch: Callable[[list[str]], Awaitable[Mapping[str, Any]]], default: Any
) -> DataLoader[str, Any]:
    async def load(keys: list[str]) -> list[Any]:
        found = await fetch(list(dict.fromkeys(keys)))
        return [found.get(k, default) for k in keys]

    return DataLoader(load_fn=load)


NO_IDS: list[str] = []
NO_VERSIONS: dict[str, Any] = {}
NO_ROW: dict[str, Any] | None = None


class Loaders:
    """One set per request, bound to the caller's tenant."""

    def __init__(self, memory: Memory, tenant: str) -> None:
        m = memory
        self.message = _loader(lambda ids: m.messages_by_ids(tenant, ids), NO_ROW)
        self.fact = _loader(lambda ids: m.facts_by_ids(tenant, ids), NO_ROW)
        self.summary = _loader(lambda ids: m.summaries_by_ids(tenant, ids), NO_ROW)
        self.facts_of_message = _loader(lambda ids: m.facts_of_messages(tenant, ids), NO_IDS)
        self.summaries_of_fact = _loader(lambda ids: m.summaries_of_facts(tenant, ids), NO_IDS)
        self.fact_versions = _loader(lambda ids: m.fact_versions(tenant, ids), NO_VERSIONS)
        self.active_summaries_of_topic = _loader(
            lambda ids: m.summaries_of_topics(tenant, ids, False), NO_IDS
        )
        self.all_summaries_of_topic = _loader(
            lambda ids: m.summaries_of_topics(tenant, ids, True), NO_IDS
        )

    async def many(self, loader: DataLoader[str, Any], ids: list[str]) -> list[Any]:
        return [x for x in await loader.load_many(ids) if x is not None]
