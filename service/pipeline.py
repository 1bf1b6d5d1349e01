"""Memory formation: pending Messages → Facts → Topics → Summaries, per user, each user's
run under its processing lease (service/leases.py) and fenced by deletions. A batch is
extracted here (service/extractor.py), made ready to write in service/batch.py, written
through graph/, then consolidated by the Consolidation the pipeline holds."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import traceback
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from core.errors import Fenced, LeaseLost, StorageUnavailable
from core.metrics import EXTRACTION_SECONDS, FAILED, PROCESSED
from core.settings import Settings
from extract.types import Extraction, FactDraft, MessageRecord, Rejection
from graph import fact_writes, failures, fencing
from graph.db import Database
from graph.pending import consolidation_due, event_window, pending_messages, pending_users
from graph.topic_summary_writes import mark_consolidated
from service.batch import Extracted, embed, find_conflicts, resolve_slots
from service.consolidation import Consolidation
from service.drafts import group_drafts, merge_drafts, rejected_messages
from service.extractor import Extractor, Failure, Task, log_failure
from service.foreground import Pacer
from service.leases import Leases, process_name
from service.models import Models
from service.worker import WorkerStatus

log = logging.getLogger(__name__)


@dataclass
class Report:
    messages: int = 0
    facts: int = 0
    superseded: int = 0
    summaries: int = 0
    retired: int = 0
    rejections: list[Rejection] = field(default_factory=list)
    failed: int = 0


FENCE_RETRIES = 3  # runs a deletion fenced in a row before the worker is left to it


class Pipeline:
    def __init__(
        self,
        db: Database,
        settings: Settings,
        models: Models | None = None,
        extractor: Extractor | None = None,
    ) -> None:
        self.db = db
        self.settings = settings
        self.models = models or Models(settings)
        self.extractor = extractor or Extractor(settings, models=self.models)
        self.status = WorkerStatus()
        self._locks: dict[tuple[str, str], asyncio.Lock] = defaultdict(asyncio.Lock)
        # this process's name in the users' processing leases, unique across machines
        self.owner = process_name()
        self._leases = Leases(db, self.owner, settings.lease_ttl_s)  # the ones it holds
        self.pacer = Pacer(db, settings)  # the worker yields while agents wait on recalls
        self.consolidation = Consolidation(db, settings, self.models, self._token)

    @property
    def dim(self) -> int:
        return self.models.embedder.dim

    async def process_users(self, tenant: str, users: list[str]) -> int:
        """Process these users now (sync mode): a user another worker holds is waited for
        up to one lease time, then left to it (it processes what is pending)."""
        total = 0
        for user_id in users:
            r = await self.process_user(tenant, user_id, wait_s=self.settings.lease_ttl_s)
            total += r.messages
        return total

    async def process_pending(self, limit: int = 100, stop: asyncio.Event | None = None) -> int:
        """Process every user with Messages due (crash recovery, retries, async mode) that
        no other worker holds, `worker_users` of them side by side; a set `stop` ends the
        pass after the users in hand. While an API is busy serving recalls, one user at a
        time and only its share of the time (service/foreground.py)."""
        users = await pending_users(self.db, limit, owner=self.owner)
        self.status.pending_users = len(users)
        queue = iter(users)

        async def lane(first: bool) -> int:
            done = 0
            while not (stop is not None and stop.is_set()):
                if not first and await self.pacer.busy():
                    break  # while agents wait: one user at a time, and its pauses
                if (user := next(queue, None)) is None:
                    break
                started = time.monotonic()
                done += (await self.process_user(*user)).messages
                await self.pacer.pause(time.monotonic() - started, stop)
            return done

        lanes = max(1, min(self.settings.worker_users, len(users)))
        outs = await asyncio.gather(*(lane(i == 0) for i in range(lanes)), return_exceptions=True)
        for out in outs:
            if isinstance(out, BaseException):
                raise out
        return sum(o for o in outs if isinstance(o, int))

    async def run_worker(self, stop: asyncio.Event, interval_s: float = 1.0) -> None:
        """Drain pending Messages until `stop` is set; storage outages only pause it.
        Any other error ends this call: the supervisor (service.worker) restarts it."""
        while not stop.is_set():
            try:
                done = await self.process_pending(stop=stop)
                self.status.last_success = datetime.now(UTC)
            except StorageUnavailable:
                done = 0
            if not done:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), interval_s)

    async def release_leases(self) -> int:
        """Give back every processing lease this process still holds (at its end)."""
        return await self._leases.release_all()

    def user_lock(self, tenant: str, user_id: str) -> asyncio.Lock:
        """The in-process lock of one user's processing (deletion takes it too)."""
        return self._locks[(tenant, user_id)]

    async def process_user(self, tenant: str, user_id: str, wait_s: float = 0.0) -> Report:
        """Process one user's pending Messages under its lease (fencing.claim_lease): any number
        of processes on any number of machines process each user serially. A user another
        owner holds is waited for up to `wait_s`, then left to it (an empty Report)."""
        async with (
            self._locks[(tenant, user_id)],
            self._leases.hold(tenant, user_id, wait_s) as held,
        ):
            if not held:
                return Report()
            for _ in range(FENCE_RETRIES):
                try:
                    return await self._process_user(tenant, user_id)
                except LeaseLost:
                    log.warning("processing lease taken by another worker: left to it")
                    return Report()
                except Fenced:
                    log.info("processing fenced by a deletion: starting over")
            return Report()  # still pending: the worker takes it up

    async def _token(self, tenant: str, user_id: str, db: Database | None = None) -> str | None:
        """The user's fencing token; LeaseLost if it no longer carries this run's lease."""
        token = await fencing.user_token(db or self.db, tenant, user_id)
        held = self._leases.held(tenant, user_id)
        if token is not None and held is not None and fencing.lease_of(token) != held:
            raise LeaseLost("another worker holds this user's processing lease")
        return token

    async def _process_user(self, tenant: str, user_id: str) -> Report:
        async with self.db.reads() as db:  # one read transaction
            token = await self._token(tenant, user_id, db)  # before the Messages
            pending = await pending_messages(db, tenant, user_id)
            window = await self._event_window(db, tenant, user_id, pending)
        if not pending:
            return await self._finish_consolidation(tenant, user_id)
        try:
            return await self._process(tenant, user_id, pending, token, window)
        except (StorageUnavailable, Fenced):
            raise  # pending Messages or the user's consolidation mark bring it back
        except Exception as exc:
            _log_error("processing failed", exc)
            return await self._one_by_one(tenant, user_id, pending, exc, token, window)

    async def _one_by_one(
        self,
        tenant: str,
        user_id: str,
        pending: list[MessageRecord],
        exc: Exception,
        token: str | None,
        window: list[MessageRecord],
    ) -> Report:
        """A batch failed past extraction (writing, embedding): each Message again on its
        own (the events together), so the one that fails fails alone."""
        reason = f"processing_error:{type(exc).__name__}"
        if len(pending) == 1:
            await self._mark_failed(tenant, {pending[0].message_id: reason})
            return Report(failed=1)
        chat = [[m] for m in pending if m.event_type == "message"]
        events = [m for m in pending if m.event_type != "message"]
        report = Report()
        for group in chat + ([events] if events else []):
            try:
                r = await self._process(
                    tenant, user_id, group, token, window if group is events else []
                )
            except (StorageUnavailable, Fenced):
                raise
            except Exception as again:
                _log_error("processing failed", again)
                why = f"processing_error:{type(again).__name__}"
                await self._mark_failed(tenant, {m.message_id: why for m in group})
                r = Report(failed=len(group))
            report.messages += r.messages
            report.facts += r.facts
            report.superseded += r.superseded
            report.summaries += r.summaries
            report.retired += r.retired
            report.failed += r.failed
            report.rejections += r.rejections
        return report

    async def _mark_failed(self, tenant: str, failed: dict[str, str]) -> None:
        """Count a failed attempt per Message; it is retried after a backoff, up to
        `max_attempts`, then it stays `failed` (listed and re-queued by hand)."""
        log.warning(
            "%d messages failed: %s",
            len(failed),
            ", ".join(sorted(set(failed.values()))),
        )
        for reason in failed.values():
            FAILED.labels(reason=reason).inc()
        await failures.mark_failed(
            self.db,
            tenant,
            failed,
            max_attempts=self.settings.max_attempts,
            backoff_s=self.settings.retry_backoff_s,
        )

    async def _finish_consolidation(self, tenant: str, user_id: str) -> Report:
        """Consolidate Facts written by a run that stopped before consolidating them."""
        if not await consolidation_due(self.db, tenant, user_id):
            return Report()
        report = Report()
        try:
            report.summaries, report.retired = await self.consolidation.run(
                tenant, user_id, marked=True
            )
        except (StorageUnavailable, Fenced):
            raise
        except Exception as exc:
            # the user's next Messages consolidate again; retrying here would loop
            _log_error("consolidation failed", exc)
            token = await self._token(tenant, user_id)
            await mark_consolidated(self.db, tenant, user_id, datetime.now(UTC), token)
        return report

    async def _process(
        self,
        tenant: str,
        user_id: str,
        pending: list[MessageRecord],
        token: str | None,
        window: list[MessageRecord],
    ) -> Report:
        report = Report()
        t0 = time.perf_counter()
        extracted = await self._extract(pending, window)
        extraction, failed = extracted.extraction, extracted.failed
        t1 = time.perf_counter()
        EXTRACTION_SECONDS.observe(t1 - t0)
        report.rejections = list(extraction.rejections)
        async with self.db.reads() as db:
            facts = await resolve_slots(db, tenant, user_id, list(extraction.facts))
            groups = group_drafts(tenant, user_id, facts)
            drafts = {fid: merge_drafts(parts) for fid, parts in groups.items()}
            known = await fact_writes.existing_fact_ids(db, tenant, list(drafts))
        done = [m for m in pending if m.message_id not in failed]
        chat = [m for m in done if m.event_type == "message"]
        msg_vec, emb = await asyncio.to_thread(
            embed, self.models, chat, {f: d for f, d in drafts.items() if f not in known}
        )
        new = [fact_writes.NewFact(fid, d, emb.get(fid), groups[fid]) for fid, d in drafts.items()]
        processed = {m.message_id: msg_vec.get(m.message_id) for m in done}
        stamps = {m.message_id: m.timestamp for m in done}
        replaces, new = (
            await find_conflicts(self.db, self.settings, self.models, tenant, user_id, new, stamps)
            if processed
            else ({}, new)
        )
        t2 = time.perf_counter()
        superseded = (
            await fact_writes.write_facts(
                self.db,
                tenant,
                user_id,
                new,
                processed,
                token,
                replaces=replaces,
                rejected=rejected_messages(chat, extraction),
                owner=self.owner,
            )
            if processed
            else []
        )
        if failed:
            await self._mark_failed(tenant, failed)
        t3 = time.perf_counter()
        report.messages, report.facts, report.superseded = (
            len(done),
            len(new),
            len(superseded),
        )
        report.failed = len(failed)
        PROCESSED.inc(len(done))
        report.summaries, report.retired = await self._consolidate_after_write(
            tenant, user_id, marked=bool(new), token=token
        )
        log.debug(
            "timings: extract %.2fs embed %.2fs write %.2fs consolidate %.2fs",
            t1 - t0,
            t2 - t1,
            t3 - t2,
            time.perf_counter() - t3,
        )
        log.info(
            "user processed: %d messages, %d facts, %d summaries",
            report.messages,
            report.facts,
            report.summaries,
        )
        return report

    async def _consolidate_after_write(
        self, tenant: str, user_id: str, marked: bool, token: str | None
    ) -> tuple[int, int]:
        """Consolidate the facts just written (under the token their writes passed). An
        error here fails no Message (they are processed): the user's mark stays, the worker
        tries once more and then drops it."""
        try:
            try:
                return await self.consolidation.run(tenant, user_id, marked=marked, token=token)
            # a deletion since the facts were written: consolidate what is left
            except Fenced:
                return await self.consolidation.run(tenant, user_id, marked=True)
        except (StorageUnavailable, Fenced):
            raise
        except Exception as exc:
            _log_error("consolidation failed", exc)
            return 0, 0

    async def _event_window(
        self, db: Database, tenant: str, user_id: str, pending: list[MessageRecord]
    ) -> list[MessageRecord]:
        """The behaviour events the pending ones are read with (none without events)."""
        events = [m for m in pending if m.event_type != "message"]
        if not events:
            return []
        return await event_window(
            db,
            tenant,
            user_id,
            min(m.timestamp for m in events) - timedelta(days=self.settings.event_window_days),
            max(m.timestamp for m in events),
            limit=self.settings.event_window_events,
            batch=[m.message_id for m in events],
        )

    async def _extract(
        self, pending: list[MessageRecord], window: list[MessageRecord]
    ) -> Extracted:
        """Each chat turn a task of its own, the event window one more: a task that fails
        (an error, past its time budget) fails its Messages only."""
        chat = [m for m in pending if m.event_type == "message"]
        events_pending = [m for m in pending if m.event_type != "message"]
        tasks = [Task("chat", (m,)) for m in chat]
        if events_pending:
            tasks.append(Task("events", tuple(window)))
        facts: list[FactDraft] = []
        rejections: list[Rejection] = []
        failed: dict[str, str] = {}
        for task, out in zip(tasks, await self.extractor.run(tasks), strict=True):
            if isinstance(out, Failure):
                owners = events_pending if task.kind == "events" else task.messages
                failed.update((m.message_id, out.reason) for m in owners)
            else:
                facts.extend(out.facts)
                rejections.extend(out.rejections)
        return Extracted(Extraction(tuple(facts), tuple(rejections)), failed)

    async def consolidate(self, tenant: str, user_id: str) -> tuple[int, int]:
        async with (
            self._locks[(tenant, user_id)],
            self._leases.hold(tenant, user_id, self.settings.lease_ttl_s) as held,
        ):
            return await self.consolidation.run(tenant, user_id) if held else (0, 0)


def _log_error(what: str, exc: BaseException) -> None:
    """The error's type and frames: its message may quote a Message's content."""
    log_failure(what, type(exc).__name__, "".join(traceback.format_tb(exc.__traceback__)))
