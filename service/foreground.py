"""Foreground first (issue 19): while agents wait on recalls, workers process less.

An API process counts the recalls it serves (`Meter.note`). Once a second, if it served at
least `foreground_busy_rps` of them, it marks itself busy in Neo4j for the next `HOLD_S`
(graph/pressure.py), so workers on any machine see it. A worker asks whether any API is
busy (at most once per `CHECK_S`) and, while one is, waits after each user it processed
long enough that it works only `worker_busy_share` of the time: on a shared machine the
CPU and Neo4j go to the agents' requests first; the queue catches up once they are quiet.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from core.errors import StorageUnavailable
from core.settings import Settings
from graph import pressure
from graph.db import Database

INTERVAL_S = 1.0  # an API's recall rate is measured over this
HOLD_S = 3.0  # an API marked busy stays so this long unless it marks itself again
CHECK_S = 1.0  # a worker asks whether any API is busy at most this often
MAX_PAUSE_S = 10.0  # one wait of a worker, at most

log = logging.getLogger(__name__)


class Meter:
    """One API process's recall rate, published as busy or not (graph/pressure.py)."""

    def __init__(self, db: Database, settings: Settings, source: str) -> None:
        self.db = db
        self.source = source
        self.rps = settings.foreground_busy_rps
        self._served = 0

    def note(self) -> None:
        """One request an agent waits on (a recall) was served."""
        self._served += 1

    async def tick(self, elapsed_s: float, now: datetime) -> bool:
        """Publish busy if the requests since the last tick reach the rate: whether it did."""
        served, self._served = self._served, 0
        if self.rps <= 0 or served < self.rps * elapsed_s:
            return False
        await pressure.publish_busy(self.db, self.source, now + timedelta(seconds=HOLD_S))
        return True

    async def run(self, stop: asyncio.Event) -> None:
        """Tick every INTERVAL_S until `stop`; an error skips a tick (logged by its type)."""
        last = time.monotonic()
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), INTERVAL_S)
            t = time.monotonic()
            try:
                await self.tick(t - last, datetime.now(UTC))
            except Exception as exc:  # advisory: a lost tick only lets workers run on
                log.warning("foreground signal not published: %s", type(exc).__name__)
            last = t


class Pacer:
    """A worker's side: after each user it processed, a wait while any API is busy."""

    def __init__(
        self, db: Database, settings: Settings, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.db = db
        self.share = settings.worker_busy_share
        self.clock = clock
        self._checked = -math.inf
        self._busy = False
        self.waited_s = 0.0  # in all, for the worker's status and benchmarks

    async def busy(self) -> bool:
        """Whether any API is busy (asked of Neo4j at most once per CHECK_S); an outage
        counts as not busy: the worker's own calls then meet it and pause."""
        if self.share >= 1:
            return False
        now = self.clock()
        if now - self._checked >= CHECK_S:
            try:
                self._busy = await pressure.foreground_busy(self.db)
            except StorageUnavailable:
                self._busy = False
            except Exception as exc:  # advisory: the worker goes on unpaced
                log.warning("foreground signal not read: %s", type(exc).__name__)
                self._busy = False
            self._checked = now
        return self._busy

    async def pause(self, worked_s: float, stop: asyncio.Event | None = None) -> float:
        """After `worked_s` of processing: wait worked_s × (1/share − 1) (at most
        MAX_PAUSE_S) while an API stays busy; `stop` or the APIs going quiet end it early.
        The seconds waited."""
        if worked_s <= 0 or not await self.busy():
            return 0.0
        left = min(worked_s * (1 / self.share - 1), MAX_PAUSE_S)
        start = self.clock()
        while left > 0 and await self.busy():
            step = min(left, CHECK_S)
            if stop is None:
                await asyncio.sleep(step)
            else:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), step)
                if stop.is_set():
                    break
            left -= step
        waited = self.clock() - start
        self.waited_s += waited
        return waited
