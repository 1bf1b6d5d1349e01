"""Topics and Summaries: the user's Topics and current Summaries that consolidation plans
against, and its one fenced transaction that writes Topics, files Facts under them,
writes new Summary versions and retires old ones."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from extract.types import SummaryDraft, TopicRecord
from graph.db import Database, Params
from graph.fencing import UserWrite, write_one
from graph.ids import draft_row
from graph.queries import query, user_rows
from graph.records import from_row


async def user_topics(db: Database, tenant: str, user_id: str) -> list[TopicRecord]:
    rows = await user_rows(db, "user_topics", tenant, user_id)
    return [
        TopicRecord(
            topic_id=r["topic_id"],
            name=r["name"],
            embedding=tuple(r["embedding"]) if r["embedding"] else None,
            aliases=tuple((r["aliases_text"] or "").split(" | ")),
        )
        for r in rows
    ]


@dataclass(frozen=True)
class CurrentSummary:
    """An active Summary as consolidation plans against it: no embedding
    (`summary_embeddings` reads those of the texts planned again)."""

    summary_id: str
    key: str
    content: str
    topic: str
    source_facts: tuple[str, ...]
    version: int  # a Summary stored without one counts as version 1
    slots: tuple[str, ...]  # the slots of the Facts that support it


async def active_summaries(
    db: Database, tenant: str, user_id: str, topics: list[str]
) -> list[CurrentSummary]:
    """The active Summaries of `topics` (ids, keys, texts, facts and their slots, versions;
    no embeddings: `summary_embeddings`)."""
    rows = await user_rows(db, "active_summaries", tenant, user_id, topics=topics)
    return [_current(r) for r in rows]


async def summaries_around(
    db: Database,
    tenant: str,
    user_id: str,
    topics: list[str],
    dirty: list[str],
    sessions: list[str],
    recent: int,
) -> list[CurrentSummary]:
    """The active Summaries of `topics` a batch can change: those a `dirty` Fact supports,
    those of its `sessions`, and the `recent` latest of each Topic. Bounded by the batch."""
    rows = await user_rows(
        db,
        "summaries_around",
        tenant,
        user_id,
        topics=topics,
        dirty=dirty,
        sessions=sessions,
        recent=recent,
    )
    return [_current(r) for r in rows]


def _current(r: dict[str, Any]) -> CurrentSummary:
    return from_row(
        CurrentSummary,
        r,
        source_facts=tuple(r["source_facts"] or ()),
        version=int(r["version"] or 1),
        slots=tuple(r["slots"] or ()),
    )


async def summary_embeddings(db: Database, tenant: str, ids: list[str]) -> dict[str, list[float]]:
    """text → embedding of these Summaries (those that have one)."""
    if not ids:
        return {}
    rows = await db.rows(query("summary_embeddings"), tenant=tenant, ids=ids)
    return {r["content"]: r["embedding"] for r in rows}


# what `write_consolidation` writes, in its order: Topics, filings, Summaries, retirements


@dataclass(frozen=True)
class NewTopic:
    """A Topic consolidation creates (only if a Fact is still there to file under it)."""

    topic_id: str
    name: str
    aliases_text: str
    embedding: list[float] | None


@dataclass(frozen=True)
class Filing:
    """A Fact filed under a Topic, by the Topic's name."""

    fact_id: str
    topic: str


@dataclass(frozen=True)
class NewSummary:
    summary_id: str
    topic_id: str
    key: str
    version: int
    draft: SummaryDraft
    embedding: list[float] | None


def summary_row(tenant: str, user_id: str, ns: NewSummary) -> dict[str, Any]:
    d = ns.draft
    return {
        **draft_row(tenant, user_id, d),
        "summary_id": ns.summary_id,
        "topic_id": ns.topic_id,
        "key": ns.key,
        "version": ns.version,
        "topic": d.topic,
        "source_facts": list(d.source_fact_ids),
        "event_start": d.event_start,
        "event_end": d.event_end,
        "decay_factor": d.decay_factor,
        "evidence_json": json.dumps(d.evidence, ensure_ascii=False, sort_keys=True, default=str),
        "embedding": ns.embedding,
        "subject": d.subject,
        "subject_kind": d.subject_kind,
    }


@dataclass(frozen=True)
class Retirement:
    """An old Summary version deprecated, and the new version that supersedes it, if any."""

    summary_id: str
    successor: str | None


def consolidation_write(
    tenant: str,
    user_id: str,
    *,
    topics: list[NewTopic],
    assign: list[Filing],
    summaries: list[NewSummary],
    retire: list[Retirement],
    started: datetime,
    token: str | None,
    touched: list[str] | None = None,
    clean: list[str] | None = None,
) -> UserWrite[None]:
    """A user's part of a write transaction (graph.fencing.write_fenced): Topics, fact
    filing, new Summary versions and retired ones; it also clears the user's mark for the
    facts written before `started` and the `dirty` mark of the facts it read (`clean`), and
    recounts the `touched` Topics (None: all). Nothing (fenced) if a deletion or another
    worker moved the user since `token` was read."""
    rows = [summary_row(tenant, user_id, s) for s in summaries]
    return _consolidation(
        tenant,
        user_id,
        token,
        started,
        write_topics={"topics": [asdict(t) for t in topics], "assign": [asdict(a) for a in assign]}
        if topics or assign
        else None,
        write_summaries={"summaries": rows} if rows else None,
        retire_summaries={"retire": [asdict(r) for r in retire]} if retire else None,
        topic_counts={"topics": touched},
        clear_dirty={"ids": clean} if clean else None,
    )


async def write_consolidation(db: Database, tenant: str, user_id: str, **kw: Any) -> None:
    """`consolidation_write`'s part written on its own (Fenced if the user moved)."""
    await write_one(db, consolidation_write(tenant, user_id, **kw))


def mark_write(tenant: str, user_id: str, started: datetime, token: str | None) -> UserWrite[None]:
    """A user's part of a write transaction that clears its consolidation mark when a
    consolidation had nothing to write (it can share a transaction with consolidations)."""
    return _consolidation(tenant, user_id, token, started)


def _consolidation(
    tenant: str, user_id: str, token: str | None, started: datetime, **steps: Params | None
) -> UserWrite[None]:
    """A consolidation's steps in their order, the user's mark cleared last (`started`)."""
    order = ("write_topics", "write_summaries", "retire_summaries", "topic_counts", "clear_dirty")
    return UserWrite(
        tenant,
        user_id,
        token,
        (
            *((name, steps.get(name)) for name in order),
            ("mark_consolidated", {"started": started}),
        ),
        lambda _got: None,
    )


async def mark_consolidated(
    db: Database, tenant: str, user_id: str, started: datetime, token: str | None
) -> None:
    """Clear the user's mark on its own (Fenced if the user moved)."""
    await write_one(db, mark_write(tenant, user_id, started, token))
