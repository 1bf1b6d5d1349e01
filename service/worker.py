"""The background worker's supervisor: an unexpected error restarts the loop after a
backoff (its type logged and counted) instead of ending it while ingest goes on."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import time
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from core.metrics import WORKER_RESTARTS

log = logging.getLogger(__name__)


def lower_priority(nice: int) -> None:
    """Run this process (and the children it starts after) at nice level `nice`, if its
    own is lower; where the OS has no nice levels, nothing changes."""
    if not hasattr(os, "getpriority"):
        return
    try:
        if os.getpriority(os.PRIO_PROCESS, 0) < nice:
            os.setpriority(os.PRIO_PROCESS, 0, nice)
    except OSError as exc:  # not allowed here: the process keeps its level
        log.warning("could not lower the priority: %s", type(exc).__name__)


State = Literal["running", "restarting", "stopped"]


@dataclass
class WorkerStatus:
    """What /health and the GraphQL `health` field tell about the worker."""

    state: State = "stopped"
    restarts: int = 0
    last_error: str | None = None  # an exception type, never its message
    last_success: datetime | None = None  # the last pass over the queue without error
    pending_users: int | None = None  # users with work due, as the last pass saw them


class Supervisor:
    """Runs `loop(stop)` until `stop` is set, restarting it after unexpected errors."""

    def __init__(
        self,
        loop: Callable[[asyncio.Event], Awaitable[None]],
        status: WorkerStatus,
        first_delay_s: float = 1.0,
        max_delay_s: float = 60.0,
    ) -> None:
        self.loop = loop
        self.status = status
        self.first_delay_s = first_delay_s
        self.max_delay_s = max_delay_s

    async def run(self, stop: asyncio.Event) -> None:
        delay = self.first_delay_s
        try:
            while not stop.is_set():
                self.status.state = "running"
                started = time.monotonic()
                try:
                    await self.loop(stop)
                    continue  # returned: `stop` was set
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    if time.monotonic() - started > 10 * self.max_delay_s:
                        delay = self.first_delay_s  # a long healthy run: start over
                    self.status.restarts += 1
                    WORKER_RESTARTS.inc()
                    self.status.last_error = type(exc).__name__
                    self.status.state = "restarting"
                    log.error(
                        "worker stopped by %s; restart %d in %.0f s\n%s",
                        type(exc).__name__,
                        self.status.restarts,
                        delay,
                        "".join(traceback.format_tb(exc.__traceback__)),
                    )
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), delay)
                delay = min(delay * 2, self.max_delay_s)
        finally:
            self.status.state = "stopped"
