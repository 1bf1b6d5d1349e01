"""Admin reads of one node by id through the neomodel classes of graph/nodes.py (`gumem show`).

The object mapper fits here: one node by its id and its few neighbours, no batching, no
ranking. The hot paths (ingest, consolidation, recall) and the batched reads by id that the
DataLoaders use (graph/reads.py) stay in cypher/. Every lookup is scoped by tenant in the
query itself, so another tenant's node is never read. The neomodel objects stop here: what
leaves is a record of graph/records.py, decoded by the same functions as the Cypher reads'
rows, so both doors give the same record."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Literal, cast, get_args

from neo4j.exceptions import Neo4jError
from neomodel import AsyncNodeSet, AsyncRelationshipManager, AsyncStructuredNode, adb

from core.errors import NotFoundError, QueryTimeout, StorageUnavailable
from graph import nodes
from graph.db import UNAVAILABLE, Database
from graph.ingest import message_uid
from graph.records import (
    StoredFact,
    StoredMessage,
    StoredSummary,
    StoredTopic,
    stored_fact,
    stored_message,
    stored_summary,
    stored_topic,
)
from graph.schema import bind_models

NodeKind = Literal["Message", "Fact", "Summary", "Topic"]
NODE_KINDS: tuple[NodeKind, ...] = get_args(NodeKind)
StoredNode = StoredMessage | StoredFact | StoredSummary | StoredTopic

# the prefixes of the ids GUMem makes (graph.ids.stable_id); a Message's id is the
# client's own, so it may look like any of them
_PREFIXES: dict[str, NodeKind] = {"f_": "Fact", "s_": "Summary", "t_": "Topic"}


def kinds_to_try(node_id: str, kind: NodeKind | None = None) -> tuple[NodeKind, ...]:
    """The kinds an id is looked up as, in order: the one given; else the one its prefix
    says, then Message."""
    if kind is not None:
        return (kind,)
    guess = _PREFIXES.get(node_id[:2])
    return ("Message",) if guess is None else (guess, "Message")


def _related(relation: object) -> AsyncNodeSet[Any]:
    """The nodes at the other end of one of a read node's relationships. The class declares
    a relationship definition; neomodel hands the instance a manager, whose node set this
    is (typed here, where neomodel's annotations leave it loose)."""
    return cast(AsyncNodeSet[Any], cast(AsyncRelationshipManager, relation).filter())


def _props(node: AsyncStructuredNode) -> dict[str, Any]:
    """The node's properties under their names in the graph (`labels`, not `fact_labels`),
    as the Cypher reads return them; a property the node lacks reads as the class's
    default."""
    defined = type(node).defined_properties(aliases=False, rels=False)
    return {prop.get_db_property_name(name): getattr(node, name) for name, prop in defined.items()}


async def _message(tenant: str, node_id: str) -> StoredMessage | None:
    m = await nodes.Message.nodes.get_or_none(uid=message_uid(tenant, node_id), tenant=tenant)
    return None if m is None else stored_message(_props(m))


async def _fact(tenant: str, node_id: str) -> StoredFact | None:
    f = await nodes.Fact.nodes.get_or_none(fact_id=node_id, tenant=tenant)
    if f is None:
        return None
    sources = await _related(f.sources).filter(tenant=tenant).order_by("timestamp").all()
    # a Fact's sources are read without ingested_at, as by cypher/facts_by_ids.cypher
    return stored_fact(_props(f), [{**_props(m), "ingested_at": None} for m in sources])


async def _summary(tenant: str, node_id: str) -> StoredSummary | None:
    s = await nodes.Summary.nodes.get_or_none(summary_id=node_id, tenant=tenant)
    if s is None:
        return None
    entities = await _related(s.mentions).filter(tenant=tenant).all()
    older = await _related(s.supersedes).filter(tenant=tenant).all()
    newer = await _related(s.superseded_by).filter(tenant=tenant).all()
    return stored_summary(
        _props(s)
        | {
            "entities": [
                {"name": e.name, "type": e.type, "normalized": e.normalized} for e in entities
            ],
            "supersedes": [v.summary_id for v in older],
            "superseded_by": [v.summary_id for v in newer],
        }
    )


async def _topic(tenant: str, node_id: str) -> StoredTopic | None:
    t = await nodes.Topic.nodes.get_or_none(topic_id=node_id, tenant=tenant)
    return None if t is None else stored_topic(_props(t))


_READS: dict[NodeKind, Callable[[str, str], Awaitable[StoredNode | None]]] = {
    "Message": _message,
    "Fact": _fact,
    "Summary": _summary,
    "Topic": _topic,
}


async def node_by_id(
    db: Database, tenant: str, node_id: str, kind: NodeKind | None = None
) -> StoredNode:
    """One Message, Fact, Summary or Topic of `tenant` by its id (of `kind`, or as
    `kinds_to_try` guesses), read in one read transaction. NotFoundError names the id."""
    if adb.driver is not db.driver:  # neomodel uses the process's driver, never its own
        await bind_models(db)
    tried = kinds_to_try(node_id, kind)
    try:
        async with asyncio.timeout(db.call_timeout_s), adb.read_transaction(timeout=db.timeout_s):
            for k in tried:
                found = await _READS[k](tenant, node_id)
                if found is not None:
                    return found
    except TimeoutError as exc:
        raise StorageUnavailable("storage unavailable: Neo4j did not answer in time") from exc
    except UNAVAILABLE as exc:
        raise StorageUnavailable("storage unavailable: Neo4j cannot be reached") from exc
    except Neo4jError as exc:
        if exc.code and "TransactionTimedOut" in exc.code:
            raise QueryTimeout(
                f"query timeout: the database work took longer than {db.timeout_s} s"
            ) from exc
        if exc.code and "TransientError" in exc.code:
            raise StorageUnavailable("storage busy: try again") from exc
        raise
    raise NotFoundError(f"no {' or '.join(tried)} with id {node_id!r}")
