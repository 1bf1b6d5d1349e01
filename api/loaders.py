"""DataLoaders: nested traversal costs one query per level, not one per node."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from strawberry.dataloader import DataLoader

from graph import reads
from graph.db import Database

T = TypeVar("T")


def _loader(
    fetch: Callable[[list[str]], Awaitable[dict[str, T]]], default: T
) -> DataLoader[str, T]:
    async def load(keys: list[str]) -> list[T]:
        found = await fetch(list(dict.fromkeys(keys)))
        return [found.get(k, default) for k in keys]

    return DataLoader(load_fn=load)


class Loaders:
    """One set per request, bound to the caller's tenant."""

    def __init__(self, db: Database, tenant: str) -> None:
        self.message = _loader(lambda ids: reads.messages(db, tenant, ids), None)
        self.fact = _loader(lambda ids: reads.facts(db, tenant, ids), None)
        self.summary = _loader(lambda ids: reads.summaries(db, tenant, ids), None)
        self.facts_of_message = _loader(
            lambda ids: reads.facts_of_messages(db, tenant, ids), [])
        self.summaries_of_fact = _loader(
            lambda ids: reads.summaries_of_facts(db, tenant, ids), [])
        self.fact_versions = _loader(
            lambda ids: reads.fact_versions(db, tenant, ids), {})
        self.active_summaries_of_topic = _loader(
            lambda ids: reads.summaries_of_topics(db, tenant, ids, False), [])
        self.all_summaries_of_topic = _loader(
            lambda ids: reads.summaries_of_topics(db, tenant, ids, True), [])

    async def many(self, loader: DataLoader[str, Any], ids: list[str]) -> list[Any]:
        return [x for x in await loader.load_many(ids) if x is not None]
