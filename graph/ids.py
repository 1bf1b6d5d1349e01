"""Stable ids of the derived nodes (Facts, Topics, Summaries, Entities), and the Entity
rows the writes of Facts and Summaries link by them."""

from __future__ import annotations

import hashlib

from extract.types import EntityRef


def stable_id(prefix: str, *parts: str) -> str:
    digest = hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:20]
    return f"{prefix}_{digest}"


def entity_id(tenant: str, user_id: str, e: EntityRef) -> str:
    return stable_id("e", tenant, user_id, e.type, e.normalized)


def entity_rows(tenant: str, user_id: str, ents: tuple[EntityRef, ...]) -> list[dict[str, str]]:
    return [
        {
            "entity_id": entity_id(tenant, user_id, e),
            "name": e.name,
            "type": e.type,
            "normalized": e.normalized,
        }
        for e in ents
    ]
