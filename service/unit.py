"""A unit of work over one or several users' pending batches (issue 40): one read
transaction for what is due, one extraction run and one embedding call for all their texts,
their Facts planned in memory, one write transaction with every user's part fenced on its
own (graph.fencing.write_fenced), then one consolidation for all of them (its reads in one
transaction, its writes in one). A user whose part is fenced is reported so and nothing of
it is written; the others commit. service/pipeline.py claims the users and handles what
fails."""

from __future__ import annotations

import asyncio
import logging
import time
import traceback
from dataclasses import dataclass, field
from datetime import timedelta

from core.errors import Fenced, StorageUnavailable
from core.metrics import EXTRACTION_SECONDS, FAILED, PROCESSED
from core.settings import Settings
from extract.types import Extraction, FactDraft, MessageRecord, Rejection
from graph import fact_writes, failures
from graph.db import Database
from graph.fencing import write_fenced
from graph.pending import event_window, pending_messages
from service.batch import Extracted, embed, find_conflicts, resolve_slots
from service.consolidation import Consolidation, Outcome
from service.drafts import group_drafts, merge_drafts, rejected_messages
from service.extractor import Extractor, Failure, Task, log_failure
from service.models import Models

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

    def add(self, other: Report) -> None:
        self.messages += other.messages
        self.facts += other.facts
        self.superseded += other.superseded
        self.summaries += other.summaries
        self.retired += other.retired
        self.failed += other.failed
        self.rejections += other.rejections


@dataclass(frozen=True)
class Run:
    """One user's part of a unit of work, as read before it: the fencing token its writes
    check, the pending Messages, and the behaviour events they are read with."""

    tenant: str
    user_id: str
    token: str | None
    pending: list[MessageRecord]
    window: list[MessageRecord]


@dataclass
class _Planned:
    """A run's batch made ready to write."""

    run: Run
    extracted: Extracted
    done: list[MessageRecord]  # the Messages not failed in extraction
    new: list[fact_writes.NewFact] = field(default_factory=list)
    processed: dict[str, list[float] | None] = field(default_factory=dict)
    replaces: dict[str, str] = field(default_factory=dict)

    @property
    def chat(self) -> list[MessageRecord]:
        return [m for m in self.done if m.event_type == "message"]


class Unit:
    """The steps of a unit of work, over the database, the settings and the models."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        models: Models,
        extractor: Extractor,
        consolidation: Consolidation,
        owner: str,
    ) -> None:
        self.db = db
        self.settings = settings
        self.models = models
        self.extractor = extractor
        self.consolidation = consolidation
        self.owner = owner

    async def read(self, db: Database, tenant: str, user_id: str, token: str | None) -> Run:
        """A user's run, read in the caller's read transaction (`db`), after `token`."""
        pending = await pending_messages(db, tenant, user_id)
        return Run(
            tenant, user_id, token, pending, await self._event_window(db, tenant, user_id, pending)
        )

    async def process(self, runs: list[Run]) -> list[Report | Fenced]:
        """Process the runs (each with pending Messages) together: a Report for each, or
        Fenced for one whose write a deletion or another worker fenced (nothing of it
        written). Another error fails the whole unit before its write, or is logged in its
        consolidation (the Messages are processed: the users' marks bring it back)."""
        t0 = time.perf_counter()
        extracted = await self._extract(runs)
        EXTRACTION_SECONDS.observe(time.perf_counter() - t0)
        planned = [
            _Planned(r, ex, [m for m in r.pending if m.message_id not in ex.failed])
            for r, ex in zip(runs, extracted, strict=True)
        ]
        drafts: list[dict[str, FactDraft]] = []
        groups: list[dict[str, tuple[FactDraft, ...]]] = []
        fresh: list[dict[str, FactDraft]] = []
        async with self.db.reads() as db:  # one read transaction for every run
            for p in planned:
                r = p.run
                facts = await resolve_slots(
                    db, r.tenant, r.user_id, list(p.extracted.extraction.facts)
                )
                g = group_drafts(r.tenant, r.user_id, facts)
                d = {fid: merge_drafts(parts) for fid, parts in g.items()}
                known = await fact_writes.existing_fact_ids(db, r.tenant, list(d))
                groups.append({f: tuple(parts) for f, parts in g.items()})
                drafts.append(d)
                fresh.append({f: x for f, x in d.items() if f not in known})
        # one model call for every run's chat turns, one for their Facts that need their own
        vectors = await asyncio.to_thread(
            embed, self.models, [(p.chat, f) for p, f in zip(planned, fresh, strict=True)]
        )
        async with self.db.reads() as db:
            for p, d, g, (msg_vec, emb) in zip(planned, drafts, groups, vectors, strict=True):
                r = p.run
                p.new = [fact_writes.NewFact(fid, x, emb.get(fid), g[fid]) for fid, x in d.items()]
                p.processed = {m.message_id: msg_vec.get(m.message_id) for m in p.done}
                if p.processed:
                    stamps = {m.message_id: m.timestamp for m in p.done}
                    p.replaces, p.new = await find_conflicts(
                        db, self.settings, self.models, r.tenant, r.user_id, p.new, stamps
                    )
        writing = [p for p in planned if p.processed]
        written = await write_fenced(
            self.db,
            [
                fact_writes.facts_write(
                    p.run.tenant,
                    p.run.user_id,
                    p.new,
                    p.processed,
                    p.run.token,
                    replaces=p.replaces,
                    rejected=rejected_messages(p.chat, p.extracted.extraction),
                    owner=self.owner,
                )
                for p in writing
            ],
        )
        superseded = {id(p): w for p, w in zip(writing, written, strict=True)}
        for p in planned:
            if p.extracted.failed and not isinstance(superseded.get(id(p)), Fenced):
                await self.mark_failed(p.run.tenant, p.extracted.failed)
        out: list[Report | Fenced] = []
        for p in planned:
            w = superseded.get(id(p), [])
            if isinstance(w, Fenced):
                out.append(w)
                continue
            PROCESSED.inc(len(p.done))
            out.append(
                Report(
                    messages=len(p.done),
                    facts=len(p.new),
                    superseded=len(w),
                    rejections=list(p.extracted.extraction.rejections),
                    failed=len(p.extracted.failed),
                )
            )
        await self._consolidate(planned, out)
        log.info(
            "unit processed: %d users, %d messages", len(runs), sum(len(p.done) for p in planned)
        )
        return out

    async def mark_failed(self, tenant: str, failed: dict[str, str]) -> None:
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

    async def _consolidate(self, planned: list[_Planned], out: list[Report | Fenced]) -> None:
        """Consolidate what the unit wrote, under the tokens its writes passed. A user a
        deletion fenced since, or every user when the unit's consolidation fails, is
        consolidated on its own (`alone`); one fenced again is reported fenced (its run
        starts over: what the deletion left is pending or marked)."""
        todo = [i for i, r in enumerate(out) if isinstance(r, Report)]
        users = [
            (p.run.tenant, p.run.user_id, bool(p.new), p.run.token)
            for p in (planned[i] for i in todo)
        ]
        try:
            outcomes: list[Outcome | None] = list(await self.consolidation.run_many(users))
        except StorageUnavailable:
            raise  # the users' marks bring it back
        except Exception as exc:
            log_error("consolidation of a unit failed", exc)
            outcomes = [None] * len(users)
        for i, user, got in zip(todo, users, outcomes, strict=True):
            report = out[i]
            assert isinstance(report, Report)
            try:
                report.summaries, report.retired = (
                    got if isinstance(got, tuple) else await self.alone(*user)
                )
            except Fenced as fenced:
                out[i] = fenced

    async def alone(
        self, tenant: str, user_id: str, marked: bool, token: str | None
    ) -> tuple[int, int]:
        """One user's consolidation after its Facts were written under `token`; a deletion
        since: what is left is consolidated under a new token. An error here fails no
        Message (they are processed): the user's mark stays, the worker tries once more
        and then drops it."""
        try:
            try:
                return await self.consolidation.run(tenant, user_id, marked=marked, token=token)
            except Fenced:
                log.info("consolidation fenced by a deletion: what is left is consolidated")
                return await self.consolidation.run(tenant, user_id, marked=True)
        except (StorageUnavailable, Fenced):
            raise
        except Exception as exc:
            log_error("consolidation failed", exc)
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

    async def _extract(self, runs: list[Run]) -> list[Extracted]:
        """Each chat turn a task of its own, each run's event window one more, every run's
        tasks in one extractor run: a task that fails (an error, past its time budget)
        fails its Messages only."""
        tasks: list[Task] = []
        owner: list[int] = []  # the run of each task
        for i, r in enumerate(runs):
            chat = [m for m in r.pending if m.event_type == "message"]
            tasks += [Task("chat", (m,)) for m in chat]
            owner += [i] * len(chat)
            if any(m.event_type != "message" for m in r.pending):
                tasks.append(Task("events", tuple(r.window)))
                owner.append(i)
        facts: list[list[FactDraft]] = [[] for _ in runs]
        rejections: list[list[Rejection]] = [[] for _ in runs]
        failed: list[dict[str, str]] = [{} for _ in runs]
        outs = await self.extractor.run(tasks)
        for i, task, got in zip(owner, tasks, outs, strict=True):
            if isinstance(got, Failure):
                events = [m for m in runs[i].pending if m.event_type != "message"]
                owners = events if task.kind == "events" else task.messages
                failed[i].update((m.message_id, got.reason) for m in owners)
            else:
                facts[i].extend(got.facts)
                rejections[i].extend(got.rejections)
        return [
            Extracted(Extraction(tuple(f), tuple(rj)), fl)
            for f, rj, fl in zip(facts, rejections, failed, strict=True)
        ]


def log_error(what: str, exc: BaseException) -> None:
    """The error's type and frames: its message may quote a Message's content."""
    log_failure(what, type(exc).__name__, "".join(traceback.format_tb(exc.__traceback__)))
