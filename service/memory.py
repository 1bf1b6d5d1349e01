"""`Memory`, the in-process Python API: what the GraphQL resolvers, the MCP tools and the CLI
call. Its methods validate what they are given and hand on: reads and writes to graph/,
processing to the pipeline, ranking and the context to service/ranking.py and
service/recall.py, governance to service/governance.py, addMessages' wait to
service/waiting.py."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import Any, TypeVar

from core.errors import InputError, StorageUnavailable
from core.inputs import (
    MAX_QUERY_CHARS,
    MessageItem,
    Page,
    Validity,
    parse_as_of,
    parse_batch,
    parse_ident,
    parse_now,
    parse_tenant,
    parse_text,
)
from core.metrics import RECALL_SECONDS, timed
from core.records import Provenance, QueueDepth
from core.settings import Settings
from core.wire import FailedMessage
from graph import admin_reads, failures, ingest, pending, reads, schema
from graph import recall as grecall
from graph import trace as gtrace
from graph.db import Database
from graph.recall import Candidates
from service import governance
from service.context import Recall
from service.foreground import Meter
from service.pipeline import Pipeline
from service.questions import merged_candidates, merged_plan, questions
from service.ranking import Plan, Weights, own_candidates, past_window, plan
from service.recall import assemble
from service.records import (
    AddResult,
    FactVersions,
    Processing,
    StoredEntity,
    StoredFact,
    StoredMessage,
    StoredSummary,
    StoredTopic,
)
from service.waiting import wait_bound, wait_processed
from text.lang import detect_lang
from text.time_window import parse_time_cue

log = logging.getLogger(__name__)
T = TypeVar("T")


class Memory:
    """GUMem for one process: the database, the settings and the (lazy) models.

    The service's edge: every caller (GraphQL, MCP, the CLI, in-process code) comes through
    these methods, which validate what they are given (ids, tenant, limits, times) once,
    here, and reach the database only through graph/."""

    def __init__(self, db: Database, settings: Settings, pipeline: Pipeline | None = None) -> None:
        self.db = db
        self.settings = settings
        self.pipeline = pipeline
        self._background: set[asyncio.Task[int]] = set()
        # requests' longer CPU work (parsing a batch, embedding a query) runs off the event
        # loop in threads of its own, never queued behind the pipeline's long embedding jobs
        self._requests = ThreadPoolExecutor(4, thread_name_prefix="gumem-request")
        self._writes = asyncio.Semaphore(settings.max_concurrent_writes)
        self.meter: Meter | None = None  # an API's recall rate, for the workers (Runtime)

    async def _cpu(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._requests, fn, *args)

    def close(self) -> None:
        self._requests.shutdown(wait=False)

    async def add_messages(
        self,
        tenant: str,
        items: Sequence[MessageItem | dict[str, Any]],
        wait: bool = False,
        wait_s: float | None = None,
    ) -> AddResult:
        """Store a batch (and in sync mode process it within the time budget). In async
        mode, `wait` returns only once none of the batch's Messages (duplicates included)
        is pending any more, whoever processes them, or after `wait_s` (default and most:
        GUMEM_MAX_WAIT_S), saying whether it timed out. In sync mode `wait` changes nothing."""
        tenant = parse_tenant(tenant)
        bound = wait_bound(self.settings, wait_s)
        started = time.monotonic()

        def prepare() -> tuple[Any, list[str]]:  # up to max_batch × max_content_chars
            batch = parse_batch(items, self.settings)
            return batch, [detect_lang(m.content) for m in batch]

        async with self._writes:  # a turn among this process's writers
            batch, langs = await self._cpu(prepare)
            stored = await ingest.add_messages(self.db, tenant, batch, langs)
        log.info("stored %d messages (%d duplicates)", len(stored.accepted), len(stored.duplicates))
        processed = 0
        if self.pipeline is not None and self.settings.process_mode == "sync" and stored.accepted:
            accepted = set(stored.accepted)
            users = sorted({m.user_id for m in batch if m.message_id in accepted})
            budget = self.settings.process_timeout_s - (time.monotonic() - started)
            processed = await self._process(self.pipeline, tenant, users, budget)
        timed_out = False
        if wait and self.settings.process_mode == "async":
            ids = list(dict.fromkeys([*stored.accepted, *stored.duplicates]))
            timed_out = not await wait_processed(self.db, tenant, ids, bound)
        return AddResult(stored.accepted, stored.duplicates, processed, timed_out)

    async def _process(
        self, pipeline: Pipeline, tenant: str, users: list[str], budget_s: float
    ) -> int:
        """Process the stored batch, waiting at most `budget_s` (what is left of
        `process_timeout_s` after storing it). Past that the caller gets its answer and the
        work goes on in the background (cancelling it could stop it between its
        transactions); on an outage the worker picks it up."""
        task: asyncio.Task[int] = asyncio.ensure_future(pipeline.process_users(tenant, users))
        done, _ = await asyncio.wait({task}, timeout=max(budget_s, 0.001))
        if task not in done:
            log.warning("processing goes on in the background past the sync budget")
            self._background.add(task)
            task.add_done_callback(self._finished)
            return 0
        try:
            return task.result()
        except StorageUnavailable:
            log.warning("processing deferred to the worker: storage unavailable")
            return 0

    def _finished(self, task: asyncio.Task[int]) -> None:
        self._background.discard(task)
        if not task.cancelled() and (exc := task.exception()) is not None:
            log.warning("background processing stopped: %s", type(exc).__name__)

    async def drain(self, timeout_s: float) -> None:
        """Wait for background processing; what is still running after `timeout_s` is
        cancelled and left to the worker (pending Messages, consolidation marks)."""
        tasks = list(self._background)
        if not tasks:
            return
        _, late = await asyncio.wait(tasks, timeout=timeout_s)
        for t in late:
            t.cancel()
        if late:
            await asyncio.wait(late)
            log.warning("%d background processing runs left to the worker", len(late))

    async def server_version(self) -> str:
        return await schema.server_version(self.db)

    async def queue_depth(self) -> QueueDepth:
        """Pending Messages of all tenants and the oldest's ingest time (for /metrics)."""
        return await pending.queue_depth(self.db)

    async def message(self, tenant: str, message_id: str) -> StoredMessage | None:
        found = await reads.messages_by_ids(self.db, parse_tenant(tenant), [message_id])
        return found.get(message_id)

    # Reads by id, batched (GraphQL DataLoaders, MCP resources). An id that is not the
    # tenant's, or not well formed, is simply not found.

    async def messages_by_ids(self, tenant: str, ids: list[str]) -> dict[str, StoredMessage]:
        return await reads.messages_by_ids(self.db, parse_tenant(tenant), ids)

    async def facts_by_ids(self, tenant: str, ids: list[str]) -> dict[str, StoredFact]:
        return await reads.facts_by_ids(self.db, parse_tenant(tenant), ids)

    async def summaries_by_ids(self, tenant: str, ids: list[str]) -> dict[str, StoredSummary]:
        return await reads.summaries_by_ids(self.db, parse_tenant(tenant), ids)

    async def facts_of_messages(self, tenant: str, ids: list[str]) -> dict[str, list[str]]:
        return await reads.facts_of_messages(self.db, parse_tenant(tenant), ids)

    async def summaries_of_facts(self, tenant: str, ids: list[str]) -> dict[str, list[str]]:
        return await reads.summaries_of_facts(self.db, parse_tenant(tenant), ids)

    async def fact_versions(self, tenant: str, ids: list[str]) -> dict[str, FactVersions]:
        return await reads.fact_versions(self.db, parse_tenant(tenant), ids)

    async def summaries_of_topics(
        self, tenant: str, ids: list[str], include_inactive: bool
    ) -> dict[str, list[str]]:
        return await reads.summaries_of_topics(self.db, parse_tenant(tenant), ids, include_inactive)

    async def processing(
        self, tenant: str, ids: list[str], user_id: str | None = None
    ) -> list[Processing]:
        """Where each asked Message id stands in processing, in the order asked (an id asked
        twice once): the tenant's Messages, only `user_id`'s when given; any other id is
        not found. At most GUMEM_MAX_BATCH ids (one addMessages batch)."""
        tenant = parse_tenant(tenant)
        if len(ids) > self.settings.max_batch:
            raise InputError("ids", f"at most {self.settings.max_batch} (GUMEM_MAX_BATCH)")
        asked = list(dict.fromkeys(parse_ident(i, "ids") for i in ids))
        if user_id is not None:
            user_id = parse_ident(user_id, "userId")
        found = await reads.message_status(self.db, tenant, asked, user_id) if asked else {}
        return [Processing(i, found.get(i)) for i in asked]

    async def trace(self, tenant: str, node_id: str) -> Provenance | None:
        """Provenance of a Summary, Fact or Message id, both ways (None: nothing by that id)."""
        return await gtrace.trace(
            self.db,
            parse_tenant(tenant),
            parse_ident(node_id, "id"),
            self.settings.trace_max_paths,
        )

    async def show(
        self, tenant: str, node_id: str, kind: str | None = None
    ) -> admin_reads.StoredNode:
        """One Message, Fact, Summary or Topic by id (`kind`, or guessed from the id), read
        through the neomodel classes: an admin read. NotFoundError names the id."""
        if kind is not None and kind not in admin_reads.NODE_KINDS:
            raise InputError("kind", f"must be one of {', '.join(admin_reads.NODE_KINDS)}")
        return await admin_reads.node_by_id(
            self.db, parse_tenant(tenant), parse_ident(node_id, "id"), kind
        )

    async def messages(
        self, tenant: str, user_id: str, session_id: str | None, page: Page
    ) -> list[StoredMessage]:
        """A user's Messages (or one session's) oldest first: a chat history."""
        user_id = parse_ident(user_id, "userId")
        sid = parse_ident(session_id, "sessionId") if session_id is not None else None
        return await reads.messages_of_user(self.db, parse_tenant(tenant), user_id, sid, page)

    @timed(RECALL_SECONDS)
    async def recall(
        self,
        tenant: str,
        user_id: str,
        query: str,
        session_id: str | None = None,
        now: datetime | None = None,
        limit: int | None = None,
        as_of: datetime | None = None,
    ) -> Recall:
        """The context for `query`. `as_of` (aware; default none, the memory as it is now)
        recalls what was known at that time: Messages up to it, the Facts valid at it (one
        superseded later shows as current), each Summary's latest version whose Facts were
        all valid at it. Relative time cues still resolve against `now`."""
        tenant = parse_tenant(tenant)
        user_id = parse_ident(user_id, "userId")
        query = parse_text(query, "query", MAX_QUERY_CHARS)
        if not query.strip():
            raise InputError("query", "must not be empty")
        if session_id is not None:
            session_id = parse_ident(session_id, "sessionId")
        if limit is not None and not 1 <= limit <= 50:
            raise InputError("limit", "must be between 1 and 50")
        now = parse_now(now)
        as_of = parse_as_of(as_of)
        if self.pipeline is None:
            raise InputError("query", "recall needs the embedding model")
        if self.meter is not None:
            self.meter.note()
        weights = Weights(
            lexical=self.settings.recall_lexical_weight,
            summary=self.settings.recall_summary_weight,
            turn=self.settings.recall_turn_weight,
            session=self.settings.recall_session_weight,
        )
        n = limit or self.settings.recall_limit
        asked = [  # a query of several questions: each on its own
            await self._question(tenant, user_id, text, now, session_id, as_of, n, weights)
            for text in questions(query)
        ]
        c = merged_candidates([c for c, _p in asked])
        p = merged_plan([p for _c, p in asked])
        facts = c.facts(p.fact_ids())  # read with the candidates: no second round trip
        return assemble(p, c, facts, query, weights, user_id=user_id)

    async def _question(
        self,
        tenant: str,
        user_id: str,
        text: str,
        now: datetime,
        session_id: str | None,
        as_of: datetime | None,
        limit: int,
        weights: Weights,
    ) -> tuple[Candidates, Plan]:
        """One question's candidates and what recall would show for it."""
        assert self.pipeline is not None
        qvec = await self._cpu(self.pipeline.models.embed_query, text)
        k = self.settings.recall_candidates
        since = min(now, as_of or now) - timedelta(hours=self.settings.short_term_hours)
        c = await grecall.candidates(
            self.db, tenant, user_id, text, qvec, now, session_id, fact_k=k, message_k=k,
            recent_k=self.settings.short_term_messages, recent_since=since, as_of=as_of,
        )  # fmt: skip
        c = own_candidates(c, user_id)
        window = past_window(parse_time_cue(text, now), now)
        # ranking a few hundred candidates takes about a millisecond: done here, as a thread
        # hop under load (waiting for the GIL and a core) costs more than it saves
        return c, plan(c, window, limit, weights, text)

    async def failed_messages(
        self, tenant: str, user_id: str | None, page: Page
    ) -> list[FailedMessage]:
        if user_id is not None:
            user_id = parse_ident(user_id, "userId")
        return await failures.failed_messages(self.db, tenant, user_id, page)

    async def retry_messages(self, tenant: str, ids: list[str]) -> int:
        """Re-queue failed Messages by id (others are left as they are); how many."""
        if len(ids) > self.settings.max_batch:
            raise InputError("ids", f"at most {self.settings.max_batch}")
        ids = [parse_ident(i, "ids") for i in ids]
        per_user = await failures.retry_messages(self.db, tenant, ids) if ids else {}
        self._reprocess(tenant, sorted(per_user))
        return sum(per_user.values())

    async def retry_failed(self, tenant: str, user_id: str) -> int:
        """Re-queue every failed Message of one user; how many."""
        user_id = parse_ident(user_id, "userId")
        n = await failures.retry_failed(self.db, tenant, user_id)
        self._reprocess(tenant, [user_id] if n else [])
        return n

    def _reprocess(self, tenant: str, users: list[str]) -> None:
        """Sync mode: process re-queued Messages now, in the background (else: the worker)."""
        if self.pipeline is None or not users or self.settings.process_mode != "sync":
            return
        task: asyncio.Task[int] = asyncio.ensure_future(self.pipeline.process_users(tenant, users))
        self._background.add(task)
        task.add_done_callback(self._finished)

    async def topics(self, tenant: str, user_id: str, page: Page) -> list[StoredTopic]:
        user_id = parse_ident(user_id, "userId")
        return await reads.topics_of_user(self.db, parse_tenant(tenant), user_id, page)

    async def entities(self, tenant: str, user_id: str, page: Page) -> list[StoredEntity]:
        """The entities of a user's world (what Facts are about when not the user: people,
        pets, events, places, organisations, items), the latest touched first."""
        user_id = parse_ident(user_id, "userId")
        return await reads.entities_of_user(self.db, parse_tenant(tenant), user_id, page)

    async def entities_by_ids(self, tenant: str, ids: list[str]) -> dict[str, StoredEntity]:
        return await reads.entities_by_ids(self.db, parse_tenant(tenant), ids)

    async def facts_of_entities(self, tenant: str, ids: list[str]) -> dict[str, list[str]]:
        """Entity id → its active Facts' ids, newest first."""
        return await reads.facts_of_entities(self.db, parse_tenant(tenant), ids)

    async def fact_ids(self, tenant: str, user_id: str, page: Page, valid: Validity) -> list[str]:
        """A user's Fact ids, newest first: the active ones, or those `valid` selects."""
        user_id = parse_ident(user_id, "userId")
        return await reads.facts_of_user(self.db, parse_tenant(tenant), user_id, page, valid)

    async def set_memory_status(self, tenant: str, summary_id: str, status: str) -> None:
        await governance.set_memory_status(self.db, tenant, summary_id, status)

    async def boost_summary(self, tenant: str, summary_id: str, boost: float) -> None:
        await governance.boost_summary(self.db, tenant, summary_id, boost)

    async def run_maintenance(self, tenant: str, now: datetime | None = None) -> dict[str, int]:
        """Decay: recompute each active Summary's weight and move its memory_status."""
        return await governance.run_maintenance(self.db, self.settings, tenant, now)
