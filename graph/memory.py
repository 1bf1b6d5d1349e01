"""Reads and writes of the memory layers (Facts, Topics, Summaries) for the pipeline."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from neo4j import AsyncManagedTransaction

from core.errors import GumemError
from extract.conflicts import Known
from extract.types import EntityRef, FactDraft, FactRecord, MessageRecord, SummaryDraft, TopicRecord
from graph.db import Database, instants, native, tx_rows
from graph.ingest import message_uid, scope_token, user_uid
from graph.queries import query


class Fenced(GumemError):
    """A deletion touched the user since this run read its Messages: it wrote nothing
    and starts over (its Messages are still pending)."""

    code = "FENCED"


class LeaseLost(Fenced):
    """Another worker claimed the user's processing lease (ours expired): this run stops
    and writes nothing more; the new owner processes what is still pending."""

    code = "LEASE_LOST"


async def claim_lease(
    db: Database, tenant: str, user_id: str, owner: str, ttl_s: float
) -> int | None:
    """Take the user's processing lease for `owner` (or extend its own live one): its
    fencing token, or None if another owner holds a live lease (or the user is gone)."""
    rows = await db.write_rows(
        query("claim_lease"),
        user_uid=user_uid(tenant, user_id),
        owner=owner,
        now=datetime.now(UTC),
        ttl_ms=int(ttl_s * 1000),
    )
    return int(rows[0]["lease"]) if rows else None


async def renew_lease(
    db: Database, tenant: str, user_id: str, owner: str, lease: int, ttl_s: float
) -> bool:
    """Extend a lease `owner` still holds; False if it was taken meanwhile."""
    rows = await db.write_rows(
        query("renew_lease"),
        user_uid=user_uid(tenant, user_id),
        owner=owner,
        lease=lease,
        now=datetime.now(UTC),
        ttl_ms=int(ttl_s * 1000),
    )
    return bool(rows)


async def release_lease(db: Database, tenant: str, user_id: str, owner: str, lease: int) -> None:
    await db.write_rows(
        query("release_lease"), user_uid=user_uid(tenant, user_id), owner=owner, lease=lease
    )


def lease_of(token: str | None) -> int | None:
    """The lease token a user token carries (its last part)."""
    if token is None:
        return None
    return int(token.rsplit("#", 1)[1])


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


def _message(row: dict[str, Any]) -> MessageRecord:
    m = instants(row)
    return MessageRecord(
        message_id=m["message_id"],
        user_id=m["user_id"],
        session_id=m["session_id"],
        role=m["role"],
        content=m["content"],
        timestamp=m["timestamp"],
        event_type=m.get("event_type") or "message",
        page=m.get("page"),
        metadata=json.loads(m.get("metadata_json") or "{}"),
        lang=m.get("lang") or "en",
    )


async def user_token(db: Database, tenant: str, user_id: str) -> str | None:
    """The user's fencing token: read before the pending Messages, checked by every write
    of the run (`_fence`). None when the user is gone: every write is then fenced."""
    rows = await db.rows(query("user_token"), user_uid=user_uid(tenant, user_id))
    return str(rows[0]["token"]) if rows else None


async def _fence(tx: AsyncManagedTransaction, tenant: str, user_id: str, token: str | None) -> None:
    """Lock the User node and check its token: first statement of a run's write."""
    rows = await tx_rows(tx, query("fence"), user_uid=user_uid(tenant, user_id))
    if token is None or not rows or rows[0]["token"] != token:
        raise Fenced("a deletion moved this user's memory; processing starts over")


async def pending_messages(
    db: Database, tenant: str, user_id: str, limit: int = 5000, now: datetime | None = None
) -> list[MessageRecord]:
    """A user's pending Messages due at `now` (a retry waits for its next attempt time)."""
    rows = await db.rows(
        query("pending_messages"),
        tenant=tenant,
        user_id=user_id,
        now=now or datetime.now(UTC),
        limit=limit,
    )
    return [_message(r["m"]) for r in rows]


async def event_window(
    db: Database,
    tenant: str,
    user_id: str,
    since: datetime,
    until: datetime,
    limit: int,
    batch: list[str],
) -> list[MessageRecord]:
    """The user's behaviour events in [since, until]: the latest `limit` of them, and the
    ones of the `batch` (ids) whatever their number. Oldest first."""
    rows = await db.rows(
        query("event_window"),
        tenant=tenant,
        user_id=user_id,
        since=since,
        until=until,
        limit=limit,
        uids=[message_uid(tenant, i) for i in batch],
    )
    return [_message(r["m"]) for r in rows]


async def existing_fact_ids(db: Database, tenant: str, ids: list[str]) -> set[str]:
    rows = await db.rows(query("existing_facts"), tenant=tenant, ids=ids)
    return {r["fact_id"] for r in rows}


@dataclass(frozen=True)
class NewFact:
    fact_id: str
    draft: FactDraft  # the drafts of `parts` merged
    embedding: list[float] | None
    parts: tuple[FactDraft, ...] = ()  # every draft of the batch with this id


def provenance(tenant: str, user_id: str, d: FactDraft) -> str:
    """One contribution to a Fact as stored (JSON): what a deletion must be able to undo."""
    return json.dumps(
        {
            "sources": list(d.source_message_ids),
            "anchors": list(d.anchors),
            "entities": [entity_id(tenant, user_id, e) for e in d.entities],
            "time_start": d.time_start.isoformat(),
            "time_end": d.time_end.isoformat(),
        },
        ensure_ascii=False,
        sort_keys=True,
        separators=(",", ":"),
    )


def _fact_row(tenant: str, user_id: str, nf: NewFact) -> dict[str, Any]:
    d = nf.draft
    return {
        "fact_id": nf.fact_id,
        "key": d.key,
        "content": d.content,
        "kind": d.kind,
        "slot": d.slot,
        "value": d.value,
        "polarity": d.polarity,
        "explicit": d.explicit,
        "confidence": d.confidence,
        "lang": d.lang,
        "labels": list(d.labels),
        "time_start": d.time_start,
        "time_end": d.time_end,
        "embedding": nf.embedding,
        "anchors": list(d.anchors),
        "source_uids": [message_uid(tenant, i) for i in d.source_message_ids],
        "provenance": list(dict.fromkeys(provenance(tenant, user_id, p) for p in nf.parts or (d,))),
        "entity_names": [e.name for e in d.entities],
        "entities": entity_rows(tenant, user_id, d.entities),
    }


async def write_facts(
    db: Database,
    tenant: str,
    user_id: str,
    facts: list[NewFact],
    processed: dict[str, list[float] | None],
    token: str | None,
    replaces: dict[str, str] | None = None,
    rejected: set[str] | None = None,
    owner: str | None = None,
) -> list[str]:
    """Merge facts, supersede older ones on their slots (and the ones in `replaces`: new
    fact id → older fact id), mark messages processed (and `rejected`: those whose
    extraction gave nothing but rejections); nothing at all (Fenced) if a deletion moved
    the user since `token` was read."""
    rejected = rejected or set()
    rows = [_fact_row(tenant, user_id, f) for f in facts]
    rows.sort(key=lambda r: (r["time_end"], r["fact_id"]))
    now = datetime.now(UTC)

    async def work(tx: AsyncManagedTransaction) -> list[str]:
        await _fence(tx, tenant, user_id, token)
        out = (
            await tx_rows(
                tx,
                query("write_facts"),
                facts=rows,
                tenant=tenant,
                user_id=user_id,
                now=now,
                scope=scope_token(tenant, user_id),
            )
            if rows
            else []
        )
        retracted = [
            {"fact_id": f.fact_id, "words": list(f.draft.retracts)}
            for f in facts
            if f.draft.retracts
        ]
        if retracted:
            out += await tx_rows(
                tx,
                query("supersede_retracted"),
                rows=retracted,
                tenant=tenant,
                user_id=user_id,
                now=now,
            )
        if replaces:
            out += await tx_rows(
                tx,
                query("supersede_conflicts"),
                rows=[{"fact_id": k, "old_id": v} for k, v in replaces.items()],
                tenant=tenant,
                user_id=user_id,
                now=now,
            )
        await tx_rows(
            tx,
            query("mark_processed"),
            now=now,
            owner=owner,
            rows=[
                {"uid": message_uid(tenant, i), "embedding": v, "rejected": i in rejected}
                for i, v in processed.items()
            ],
        )
        if rows:
            await tx_rows(
                tx, query("mark_unconsolidated"), user_uid=user_uid(tenant, user_id), now=now
            )
        return [s for r in out for s in r["superseded"]]

    return await db.write(work)


async def conflict_candidates(
    db: Database,
    tenant: str,
    user_id: str,
    limit: int,
    vectors: list[list[float]],
    min_cosine: float,
) -> list[Known]:
    """The user's latest active Facts with embeddings (what a correction may replace); the
    embedding only of those at least `min_cosine` near one of `vectors` (None for the
    others: too far to be replaced by any of them)."""
    rows = await db.rows(
        query("conflict_candidates"),
        tenant=tenant,
        user_id=user_id,
        limit=limit,
        vectors=vectors,
        min_cosine=min_cosine,
    )
    return [
        Known(
            fact_id=r["fact_id"],
            content=r["content"] or "",
            kind=r["kind"] or "fact",
            polarity=r["polarity"],
            slot=r["slot"],
            valid_from=native(r["valid_from"]),
            embedding=r["embedding"],
            sources=tuple(r["sources"]),
            entities=tuple((e["name"], e["type"]) for e in r["ents"]),
        )
        for r in rows
    ]


async def active_slots(db: Database, tenant: str, user_id: str, heads: list[str]) -> list[str]:
    """The slots of the user's active Facts that start with one of `heads` (a superset of
    the ones whose head is one of them: the caller compares heads)."""
    rows = await db.rows(query("active_slots"), tenant=tenant, user_id=user_id, heads=heads)
    return [r["slot"] for r in rows]


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
    )
    return Filed(rec, f.get("topic"), r["prev_topic"], f.get("validity") == "active")


async def dirty_facts(db: Database, tenant: str, user_id: str) -> list[Filed]:
    """The Facts written, re-merged or superseded since the user's last consolidation."""
    rows = await db.rows(query("dirty_facts"), tenant=tenant, user_id=user_id)
    return [_filed(r) for r in rows]


async def facts_of_topics(
    db: Database, tenant: str, user_id: str, topics: list[str], also: list[str] | None = None
) -> list[Filed]:
    """The active Facts filed under `topics` (plus the ids in `also`), oldest first."""
    rows = await db.rows(
        query("facts_of_topics"), tenant=tenant, user_id=user_id, topics=topics, also=also or []
    )
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
    rows = await db.rows(
        query("facts_near"),
        tenant=tenant,
        user_id=user_id,
        sessions=sessions,
        families=families,
        spans=[{"since": a, "until": b} for a, b in spans],
    )
    return [_filed(r) for r in rows]


async def user_topics(db: Database, tenant: str, user_id: str) -> list[TopicRecord]:
    rows = await db.rows(query("user_topics"), tenant=tenant, user_id=user_id)
    return [
        TopicRecord(
            topic_id=r["topic_id"],
            name=r["name"],
            embedding=tuple(r["embedding"]) if r["embedding"] else None,
            aliases=tuple((r["aliases_text"] or "").split(" | ")),
        )
        for r in rows
    ]


async def active_summaries(
    db: Database, tenant: str, user_id: str, topics: list[str]
) -> list[dict[str, Any]]:
    """The active Summaries of `topics` (ids, keys, texts, facts and their slots, versions;
    no embeddings: `summary_embeddings`)."""
    return await db.rows(query("active_summaries"), tenant=tenant, user_id=user_id, topics=topics)


async def summary_embeddings(db: Database, tenant: str, ids: list[str]) -> dict[str, list[float]]:
    """text → embedding of these Summaries (those that have one)."""
    if not ids:
        return {}
    rows = await db.rows(query("summary_embeddings"), tenant=tenant, ids=ids)
    return {r["content"]: r["embedding"] for r in rows}


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
        "summary_id": ns.summary_id,
        "topic_id": ns.topic_id,
        "key": ns.key,
        "version": ns.version,
        "content": d.content,
        "topic": d.topic,
        "kind": d.kind,
        "source_facts": list(d.source_fact_ids),
        "confidence": d.confidence,
        "event_start": d.event_start,
        "event_end": d.event_end,
        "labels": list(d.labels),
        "entity_names": [e.name for e in d.entities],
        "decay_factor": d.decay_factor,
        "evidence_json": json.dumps(d.evidence, ensure_ascii=False, sort_keys=True, default=str),
        "anchors": list(d.anchors),
        "embedding": ns.embedding,
        "lang": d.lang,
        "entities": entity_rows(tenant, user_id, d.entities),
    }


async def write_consolidation(
    db: Database,
    tenant: str,
    user_id: str,
    *,
    topics: list[dict[str, Any]],
    assign: list[dict[str, str]],
    summaries: list[NewSummary],
    retire: list[dict[str, Any]],
    started: datetime,
    token: str | None,
    touched: list[str] | None = None,
    clean: list[str] | None = None,
) -> None:
    """Topics, fact filing, new Summary versions and retired ones: one transaction, which
    also clears the user's mark for the facts written before `started` and the `dirty`
    mark of the facts it read (`clean`), and recounts the `touched` Topics (None: all).
    Nothing (Fenced) if a deletion or another worker moved the user since `token` was read."""
    now = datetime.now(UTC)
    rows = [summary_row(tenant, user_id, s) for s in summaries]
    scope = {
        "tenant": tenant,
        "user_id": user_id,
        "now": now,
        "scope": scope_token(tenant, user_id),
    }

    async def work(tx: AsyncManagedTransaction) -> None:
        await _fence(tx, tenant, user_id, token)
        await tx_rows(tx, query("write_topics"), topics=topics, assign=assign, **scope)
        if rows:
            await tx_rows(tx, query("write_summaries"), summaries=rows, **scope)
        if retire:
            await tx_rows(tx, query("retire_summaries"), retire=retire, **scope)
        await tx_rows(tx, query("topic_counts"), topics=touched, **scope)
        if clean:
            await tx_rows(tx, query("clear_dirty"), ids=clean, tenant=tenant)
        await _clear_mark(tx, tenant, user_id, started)

    await db.write(work)


async def _clear_mark(
    tx: AsyncManagedTransaction, tenant: str, user_id: str, started: datetime
) -> None:
    await tx_rows(
        tx, query("mark_consolidated"), user_uid=user_uid(tenant, user_id), started=started
    )


async def mark_consolidated(
    db: Database, tenant: str, user_id: str, started: datetime, token: str | None
) -> None:
    """Clear the user's mark when a consolidation had nothing to write."""

    async def work(tx: AsyncManagedTransaction) -> None:
        await _fence(tx, tenant, user_id, token)
        await _clear_mark(tx, tenant, user_id, started)

    await db.write(work)


async def consolidation_due(db: Database, tenant: str, user_id: str) -> bool:
    rows = await db.rows(query("consolidation_due"), user_uid=user_uid(tenant, user_id))
    return bool(rows and rows[0]["due"])


async def pending_users(
    db: Database, limit: int = 100, now: datetime | None = None, owner: str | None = None
) -> list[tuple[str, str]]:
    """Users with Messages due at `now` or with facts to consolidate, oldest first; with
    `owner`, only those no other owner holds a live lease on."""
    rows = await db.rows(
        query("pending_users"), now=now or datetime.now(UTC), limit=limit, owner=owner
    )
    return [(r["tenant"], r["user_id"]) for r in rows]


def retry_delays_ms(max_attempts: int, backoff_s: float, cap_s: float = 3600.0) -> list[int]:
    """The wait before attempt n + 1 after n failed ones: doubling from `backoff_s`."""
    return [int(min(backoff_s * 2**n, cap_s) * 1000) for n in range(max_attempts)]


async def mark_failed(
    db: Database, tenant: str, failed: dict[str, str], *, max_attempts: int, backoff_s: float
) -> None:
    """One failed attempt for each Message (id → reason): retried after a backoff, or
    `failed` for good once `max_attempts` are spent."""
    rows = [{"uid": message_uid(tenant, i), "reason": r} for i, r in failed.items()]

    async def work(tx: AsyncManagedTransaction) -> None:
        await tx_rows(
            tx,
            query("mark_failed"),
            rows=rows,
            now=datetime.now(UTC),
            max_attempts=max_attempts,
            delays=retry_delays_ms(max_attempts, backoff_s),
        )

    await db.write(work)


@dataclass(frozen=True)
class FailedMessage:
    message_id: str
    user_id: str
    session_id: str
    reason: str
    attempts: int
    last_attempt_at: datetime | None
    timestamp: datetime


async def failed_messages(
    db: Database, tenant: str, user_id: str | None, limit: int, offset: int
) -> list[FailedMessage]:
    rows = await db.rows(
        query("failed_messages"), tenant=tenant, user_id=user_id, limit=limit, offset=offset
    )
    return [
        FailedMessage(
            r["message_id"],
            r["user_id"],
            r["session_id"],
            r["reason"] or "unknown",
            int(r["attempts"]),
            native(r["last_attempt_at"]),
            native(r["timestamp"]),
        )
        for r in rows
    ]


async def retry_messages(db: Database, tenant: str, message_ids: list[str]) -> dict[str, int]:
    """Re-queue these failed Messages of the tenant; how many per user."""
    uids = [message_uid(tenant, i) for i in message_ids]

    async def work(tx: AsyncManagedTransaction) -> dict[str, int]:
        rows = await tx_rows(tx, query("retry_messages"), tenant=tenant, uids=uids)
        return {r["user_id"]: int(r["n"]) for r in rows}

    return await db.write(work)


async def retry_failed(db: Database, tenant: str, user_id: str) -> int:
    """Re-queue every failed Message of one user; how many."""

    async def work(tx: AsyncManagedTransaction) -> int:
        rows = await tx_rows(tx, query("retry_failed"), tenant=tenant, user_id=user_id)
        return int(rows[0]["n"]) if rows else 0

    return await db.write(work)
