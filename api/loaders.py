"""DataLoaders: nested traversal costs one query per level, not one per node."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from strawberry.dataloader import DataLoader

from graph import reads
from graph.db import Database


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

    def __init__(self, db: Database, tenant: str) -> None:
        self.message = _loader(lambda ids: reads.messages(db, tenant, ids), NO_ROW)
        self.fact = _loader(lambda ids: reads.facts(db, tenant, ids), NO_ROW)
        self.summary = _loader(lambda ids: reads.summaries(db, tenant, ids), NO_ROW)
        self.facts_of_message = _loader(
            lambda ids: reads.facts_of_messages(db, tenant, ids), NO_IDS
        )
        self.summaries_of_fact = _loader(
            lambda ids: reads.summaries_of_facts(db, tenant, ids), NO_IDS
        )
        self.fact_versions = _loader(lambda ids: reads.fact_versions(db, tenant, ids), NO_VERSIONS)
        self.active_summaries_of_topic = _loader(
            lambda ids: reads.summaries_of_topics(db, tenant, ids, False), NO_IDS
        )
        self.all_summaries_of_topic = _loader(
            lambda ids: reads.summaries_of_topics(db, tenant, ids, True), NO_IDS
        )

    async def many(self, loader: DataLoader[str, Any], ids: list[str]) -> list[Any]:
        return [x for x in await loader.load_many(ids) if x is not None]
