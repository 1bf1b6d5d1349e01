"""Stable ids of the derived nodes (Facts, Topics, Summaries, Entities), the Entity rows
the writes of Facts and Summaries link by them, and what else their rows share."""

from __future__ import annotations

import hashlib
from typing import Any

from extract.types import EntityRef, FactDraft, SummaryDraft


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


def draft_row(tenant: str, user_id: str, d: FactDraft | SummaryDraft) -> dict[str, Any]:
    """What the row of a Fact's write and a Summary's share: the draft's text, kind,
    confidence, language, labels, anchors and entities."""
    return {
        "content": d.content,
        "kind": d.kind,
        "confidence": d.confidence,
        "lang": d.lang,
        "labels": list(d.labels),
        "anchors": list(d.anchors),
        "entity_names": [e.name for e in d.entities],
        "entities": entity_rows(tenant, user_id, d.entities),
    }
