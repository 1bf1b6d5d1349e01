"""Reads by id and by owner, every one scoped by tenant (the DataLoaders' batch functions).

Each returns the typed records of graph/records.py."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.inputs import Page, Validity
from graph.db import Database, instants, native
from graph.ingest import message_uid
from graph.queries import query, user_rows
from graph.records import (
    FactVersions,
    MessageStatus,
    StoredEntity,
    StoredFact,
    StoredMessage,
    StoredSummary,
    StoredTopic,
    stored_entity,
    stored_fact,
    stored_message,
    stored_status,
    stored_summary,
    stored_topic,
)


async def messages_by_ids(db: Database, tenant: str, ids: list[str]) -> dict[str, StoredMessage]:
    rows = await db.rows(
        query("messages_by_ids"), tenant=tenant, uids=[message_uid(tenant, i) for i in ids]
    )
    found = (stored_message(native(r["message"])) for r in rows)
    return {m.message_id: m for m in found}


async def message_status(
    db: Database, tenant: str, ids: list[str], user_id: str | None = None
) -> dict[str, MessageStatus]:
    """Where these Messages stand in processing, by id: the tenant's (and `user_id`'s, when
    given); an id not among them is left out."""
    rows = await db.rows(
        query("message_status"),
        tenant=tenant,
        uids=[message_uid(tenant, i) for i in ids],
        user_id=user_id,
    )
    found = (stored_status(native(r)) for r in rows)
    return {s.message_id: s for s in found}


def fact_of_row(r: Mapping[str, Any]) -> StoredFact:
    """A Fact with its sources as cypher/facts_by_ids.cypher (and recall.cypher) read it."""
    return stored_fact(instants(r["fact"]), instants(r["sources"]))


async def facts_by_ids(db: Database, tenant: str, ids: list[str]) -> dict[str, StoredFact]:
    """Facts with their source Messages."""
    rows = await db.rows(query("facts_by_ids"), tenant=tenant, ids=ids)
    found = (fact_of_row(r) for r in rows)
    return {f.fact_id: f for f in found}


async def summaries_by_ids(db: Database, tenant: str, ids: list[str]) -> dict[str, StoredSummary]:
    rows = await db.rows(query("summaries_by_ids"), tenant=tenant, ids=ids)
    found = (stored_summary(native(r["summary"])) for r in rows)
    return {s.summary_id: s for s in found}


async def facts_of_messages(db: Database, tenant: str, ids: list[str]) -> dict[str, list[str]]:
    rows = await db.rows(
        query("facts_of_messages"), tenant=tenant, uids=[message_uid(tenant, i) for i in ids]
    )
    return {r["message_id"]: r["fact_ids"] for r in rows}


async def summaries_of_facts(db: Database, tenant: str, ids: list[str]) -> dict[str, list[str]]:
    rows = await db.rows(query("summaries_of_facts"), tenant=tenant, ids=ids)
    return {r["fact_id"]: r["summary_ids"] for r in rows}


async def summaries_of_topics(
    db: Database, tenant: str, ids: list[str], include_inactive: bool
) -> dict[str, list[str]]:
    rows = await db.rows(query("summaries_of_topics"), tenant=tenant, ids=ids, all=include_inactive)
    return {r["topic_id"]: r["summary_ids"] for r in rows}


async def fact_versions(db: Database, tenant: str, ids: list[str]) -> dict[str, FactVersions]:
    rows = await db.rows(query("supersedes_of_facts"), tenant=tenant, ids=ids)
    return {
        r["fact_id"]: FactVersions(r["fact_id"], tuple(r["supersedes"]), tuple(r["superseded_by"]))
        for r in rows
    }


async def messages_of_user(
    db: Database,
    tenant: str,
    user_id: str,
    session_id: str | None,
    page: Page,
) -> list[StoredMessage]:
    """A user's Messages (or one session's), oldest first."""
    name = "messages_of_session" if session_id is not None else "messages_of_user"
    rows = await user_rows(db, name, tenant, user_id, page, session_id=session_id)
    return [stored_message(native(r["message"])) for r in rows]


async def topics_of_user(db: Database, tenant: str, user_id: str, page: Page) -> list[StoredTopic]:
    rows = await user_rows(db, "topics_of_user", tenant, user_id, page)
    return [stored_topic(r["topic"]) for r in rows]


async def facts_of_user(
    db: Database,
    tenant: str,
    user_id: str,
    page: Page,
    valid: Validity,
) -> list[str]:
    """A user's Fact ids, newest first, those `valid` selects."""
    rows = await user_rows(
        db, "facts_of_user", tenant, user_id, page, all=valid.everything, as_of=valid.at
    )
    return [r["fact_id"] for r in rows]


async def entities_of_user(
    db: Database, tenant: str, user_id: str, page: Page
) -> list[StoredEntity]:
    """A user's world entities (what Facts are about), the latest touched first."""
    rows = await user_rows(db, "entities_of_user", tenant, user_id, page)
    return [stored_entity(native(r["entity"])) for r in rows]


async def entities_by_ids(db: Database, tenant: str, ids: list[str]) -> dict[str, StoredEntity]:
    rows = await db.rows(query("entities_by_ids"), tenant=tenant, ids=ids)
    found = (stored_entity(native(r["entity"])) for r in rows)
    return {e.entity_id: e for e in found}


async def facts_of_entities(db: Database, tenant: str, ids: list[str]) -> dict[str, list[str]]:
    """Entity id → the ids of the active Facts about it, newest first."""
    rows = await db.rows(query("facts_of_entities"), tenant=tenant, ids=ids)
    return {r["entity_id"]: r["fact_ids"] for r in rows}
