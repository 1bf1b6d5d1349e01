"""Memory formation: pending Messages → Facts → Topics → Summaries, each user's run under
its processing lease (service/leases.py) and fenced by deletions. Several users' batches are
processed together as one unit of work (service/unit.py: one read, one model call, one
fenced write, one consolidation for all of them): the worker's pass takes the users due in
units, and sync processing combines the users that concurrent requests ask for
(service/combine.py). A unit that fails is taken apart: each user alone, then each Message
alone, so one bad Message fails no other."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import defaultdict
from datetime import UTC, datetime

from core.errors import Fenced, LeaseLost, StorageUnavailable
from core.settings import Settings
from graph import fencing
from graph.db import Database
from graph.pending import consolidation_due, pending_users
from graph.topic_summary_writes import mark_consolidated
from service.combine import Combiner
from service.consolidation import Consolidation
from service.extractor import Extractor
from service.foreground import Pacer
from service.leases import Leases, process_name
from service.models import Models
from service.unit import Report, Run, Unit, log_error
from service.worker import WorkerStatus

log = logging.getLogger(__name__)

__all__ = ["FENCE_RETRIES", "LANES", "Pipeline", "Report"]

Key = tuple[str, str]  # (tenant, user id)
FENCE_RETRIES = 3  # runs a deletion fenced in a row before the worker is left to it
# units of work one process runs side by side: one's model work overlaps another's database
# work
LANES = 2


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
        self._locks: dict[Key, asyncio.Lock] = defaultdict(asyncio.Lock)
        # this process's name in the users' processing leases, unique across machines
        self.owner = process_name()
        self._leases = Leases(db, self.owner, settings.lease_ttl_s)  # the ones it holds
        self.pacer = Pacer(db, settings)  # the worker yields while agents wait on recalls
        self.consolidation = Consolidation(db, settings, self.models, self._token)
        self.unit = Unit(db, settings, self.models, self.extractor, self.consolidation, self.owner)
        self._combined = Combiner(self._combined_unit, settings.unit_users, LANES)

    @property
    def dim(self) -> int:
        return self.models.embedder.dim

    async def process_users(self, tenant: str, users: list[str]) -> int:
        """Process these users now (sync mode), in units of work with the users other
        requests of this process ask for meanwhile: a user another worker holds is waited
        for up to one lease time, then left to it (it processes what is pending)."""
        return await self._combined.process([(tenant, u) for u in users])

    async def _combined_unit(self, users: list[Key]) -> dict[Key, int]:
        reports = await self.process_group(users, wait_s=self.settings.lease_ttl_s)
        return {k: r.messages for k, r in reports.items()}

    async def process_pending(self, limit: int = 100, stop: asyncio.Event | None = None) -> int:
        """Process every user with Messages due (crash recovery, retries, async mode) that
        no other worker holds: `worker_users` of them in hand at a time, in units of work
        of at most `unit_users`, `LANES` units side by side; a set `stop` ends the pass
        after the units in hand. While an API is busy serving recalls, one unit at a time
        and only its share of the time (service/foreground.py)."""
        users = await pending_users(self.db, limit, owner=self.owner)
        self.status.pending_users = len(users)
        lanes = max(1, min(LANES, self.settings.worker_users, len(users)))
        size = max(1, min(self.settings.unit_users, self.settings.worker_users // lanes))
        units = iter([users[i : i + size] for i in range(0, len(users), size)])

        async def lane(first: bool) -> int:
            done = 0
            while not (stop is not None and stop.is_set()):
                if not first and await self.pacer.busy():
                    break  # while agents wait: one unit at a time, and its pauses
                if (unit := next(units, None)) is None:
                    break
                started = time.monotonic()
                reports = await self.process_group(unit)
                done += sum(r.messages for r in reports.values())
                await self.pacer.pause(time.monotonic() - started, stop)
            return done

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

    async def process_group(self, users: list[Key], wait_s: float = 0.0) -> dict[Key, Report]:
        """Process these users' pending Messages as one unit of work, each under its lease
        (any number of processes on any number of machines process each user serially).
        A user this process is busy with, or another owner holds, is then processed on its
        own (`process_user`, waiting up to `wait_s`); one a deletion fenced, alone again."""
        keys = list(dict.fromkeys(users))
        # taken in one global order (sorted): two units that share users never wait on each
        # other's locks in a cycle (a lock just released may still make its taker wait)
        free = sorted(k for k in keys if not self._locks[k].locked())
        reports: dict[Key, Report] = {}
        async with contextlib.AsyncExitStack() as stack:
            for k in free:  # not locked: each is taken at once
                await stack.enter_async_context(self._locks[k])
            held = await stack.enter_async_context(self._leases.hold_many(free))
            try:
                for key, got in (await self._unit(held)).items():
                    if isinstance(got, Fenced):
                        log.info("processing fenced by a deletion: the user starts over alone")
                        got = await self._alone(key)
                    reports[key] = got
            except LeaseLost:
                log.warning("a processing lease was taken by another worker: left to it")
        for key in keys:
            if key not in reports:  # held, but a lease lost: left to its new owner
                reports[key] = (
                    Report() if key in held else await self.process_user(*key, wait_s=wait_s)
                )
        return reports

    async def process_user(self, tenant: str, user_id: str, wait_s: float = 0.0) -> Report:
        """Process one user's pending Messages under its lease (fencing.claim_leases): any
        number of processes on any number of machines process each user serially. A user
        another owner holds is waited for up to `wait_s`, then left to it (an empty
        Report)."""
        async with (
            self._locks[(tenant, user_id)],
            self._leases.hold(tenant, user_id, wait_s) as held,
        ):
            if not held:
                return Report()
            try:
                return await self._alone((tenant, user_id))
            except LeaseLost:
                log.warning("processing lease taken by another worker: left to it")
                return Report()

    async def _alone(self, key: Key) -> Report:
        """One user's unit of work, started over while a deletion fences it."""
        for _ in range(FENCE_RETRIES):
            got = (await self._unit([key])).get(key, Report())
            if isinstance(got, Report):
                return got
            log.info("processing fenced by a deletion: starting over")
        return Report()  # still pending: the worker takes it up

    async def _token(self, tenant: str, user_id: str, db: Database | None = None) -> str | None:
        """The user's fencing token; LeaseLost if it no longer carries this run's lease."""
        token = await fencing.user_token(db or self.db, tenant, user_id)
        held = self._leases.held(tenant, user_id)
        if token is not None and held is not None and fencing.lease_of(token) != held:
            raise LeaseLost("another worker holds this user's processing lease")
        return token

    async def _unit(self, users: list[Key]) -> dict[Key, Report | Fenced]:
        """The held users' work as one unit: what is due read in one transaction (each
        token before its Messages), the users with Messages processed together, the
        others' unfinished consolidation finished. A unit that fails is taken apart."""
        runs: list[Run] = []
        async with self.db.reads() as db:  # one read transaction
            for tenant, user_id in users:
                token = await self._token(tenant, user_id, db)
                runs.append(await self.unit.read(db, tenant, user_id, token))
        out: dict[Key, Report | Fenced] = {}
        for r in runs:
            if not r.pending:
                out[(r.tenant, r.user_id)] = await self._finish_consolidation(r.tenant, r.user_id)
        todo = [r for r in runs if r.pending]
        if not todo:
            return out
        try:
            got = await self.unit.process(todo)
        except (StorageUnavailable, LeaseLost):
            raise  # pending Messages or the users' consolidation marks bring them back
        except Exception as exc:
            log_error("processing failed", exc)
            if len(todo) == 1:
                got = [await self._one_by_one(todo[0], exc)]
            else:  # each user alone: the one whose Message fails fails alone
                got = [await self._alone((r.tenant, r.user_id)) for r in todo]
        out.update(((r.tenant, r.user_id), g) for r, g in zip(todo, got, strict=True))
        return out

    async def _one_by_one(self, run: Run, exc: Exception) -> Report | Fenced:
        """A user's batch failed past extraction (writing, embedding): each Message again
        on its own (the events together), so the one that fails fails alone."""
        reason = f"processing_error:{type(exc).__name__}"
        if len(run.pending) == 1:
            await self.unit.mark_failed(run.tenant, {run.pending[0].message_id: reason})
            return Report(failed=1)
        chat = [[m] for m in run.pending if m.event_type == "message"]
        events = [m for m in run.pending if m.event_type != "message"]
        report = Report()
        for group in chat + ([events] if events else []):
            window = run.window if group is events else []
            part = Run(run.tenant, run.user_id, run.token, group, window)
            try:
                (r,) = await self.unit.process([part])
            except (StorageUnavailable, LeaseLost):
                raise
            except Exception as again:
                log_error("processing failed", again)
                why = f"processing_error:{type(again).__name__}"
                await self.unit.mark_failed(run.tenant, {m.message_id: why for m in group})
                r = Report(failed=len(group))
            if isinstance(r, Fenced):
                return r
            report.add(r)
        return report

    async def _finish_consolidation(self, tenant: str, user_id: str) -> Report | Fenced:
        """Consolidate Facts written by a run that stopped before consolidating them."""
        if not await consolidation_due(self.db, tenant, user_id):
            return Report()
        report = Report()
        try:
            report.summaries, report.retired = await self.consolidation.run(
                tenant, user_id, marked=True
            )
        except Fenced as fenced:
            return fenced
        except (StorageUnavailable, LeaseLost):
            raise
        except Exception as exc:
            # the user's next Messages consolidate again; retrying here would loop
            log_error("consolidation failed", exc)
            token = await self._token(tenant, user_id)
            await mark_consolidated(self.db, tenant, user_id, datetime.now(UTC), token)
        return report

    async def consolidate(self, tenant: str, user_id: str) -> tuple[int, int]:
        async with (
            self._locks[(tenant, user_id)],
            self._leases.hold(tenant, user_id, self.settings.lease_ttl_s) as held,
        ):
            return await self.consolidation.run(tenant, user_id) if held else (0, 0)
