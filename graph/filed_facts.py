"""Facts as consolidation reads them (`Filed`: the Fact with its Topic): the ones dirty
since the last consolidation, the ones of some Topics, and the ones near new Facts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from extract.types import EntityRef, FactRecord
from graph.db import Database, instants
from graph.queries import user_rows


@dataclass(frozen=True)
class Filed:
    fact: FactRecord
    topic: str | None
    prev_topic: str | None  # an unfiled correction: the Topic of the fact it replaced
    active: bool = True  # a dirty Fact may be one superseded since the last consolidation


def _filed(r: dict[str, Any]) -> Filed:
    f = instants(r["f"])
    rec = FactRecord(
        fact_id=f["fact_id"],
        user_id=f["user_id"],
        content=f["content"],
        kind=f["kind"],
        source_message_ids=tuple(f["source_message_ids"] or ()),
        time_start=f["time_start"],
        time_end=f["time_end"],
        lang=f["lang"] or "en",
        entities=tuple(EntityRef(e["name"], e["type"], e["normalized"]) for e in r["ents"]),
        labels=tuple(f["labels"] or ()),
        slot=f["slot"],
        value=f["value"],
        polarity=f["polarity"] or "neutral",
        explicit=bool(f["explicit"]),
        confidence=float(f["confidence"] or 1.0),
        validity="active",
        event_types=tuple(f["event_types"] or ()),
        embedding=tuple(r["embedding"]) if r["embedding"] else None,
        key=f["key"] or "",
        session_ids=tuple(f["session_ids"] or ()),
        anchors=tuple(f["anchors"] or ()),
        subject=f.get("subject"),
        subject_kind=f.get("subject_kind") or "user",
    )
    return Filed(rec, f.get("topic"), r["prev_topic"], f.get("validity") == "active")


# the latest Facts of a user among which those of a new Fact's slot family vote on its
# Topic: a long-lived goal's recent Facts speak for it, and the read stays bounded
RECENT_VOTERS = 500


async def dirty_facts(db: Database, tenant: str, user_id: str) -> list[Filed]:
    """The Facts written, re-merged or superseded since the user's last consolidation."""
    rows = await user_rows(db, "dirty_facts", tenant, user_id)
    return [_filed(r) for r in rows]


async def facts_of_topics(
    db: Database, tenant: str, user_id: str, topics: list[str], also: list[str] | None = None
) -> list[Filed]:
    """The active Facts filed under `topics` (plus the ids in `also`), oldest first."""
    rows = await user_rows(db, "facts_of_topics", tenant, user_id, topics=topics, also=also or [])
    return [_filed(r) for r in rows]


async def facts_near(
    db: Database,
    tenant: str,
    user_id: str,
    sessions: list[str],
    families: list[str],
    spans: list[tuple[datetime, datetime]],
) -> list[Filed]:
    """The filed active Facts sharing a session or a slot family with new ones, or within
    one of their time `spans` (each widened by the context window): the ones whose Topic
    can vote on theirs. Oldest first."""
    rows = await user_rows(
        db,
        "facts_near",
        tenant,
        user_id,
        sessions=sessions,
        families=families,
        spans=[{"since": a, "until": b} for a, b in spans],
        recent=RECENT_VOTERS,
    )
    return [_filed(r) for r in rows]


async def fact_embeddings(
    db: Database, tenant: str, user_id: str, ids: list[str]
) -> dict[str, list[float]]:
    """fact id → embedding of these Facts of the user (those that have one)."""
    if not ids:
        return {}
    rows = await user_rows(db, "fact_embeddings", tenant, user_id, ids=ids)
    return {r["fact_id"]: r["embedding"] for r in rows}
