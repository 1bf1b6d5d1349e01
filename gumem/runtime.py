"""What one process holds: the driver (opened at start, closed at exit) and the models."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from core.errors import StorageUnavailable
from core.settings import Settings
from graph.db import Database, make_driver
from graph.schema import apply_schema, bind_models
from gumem.foreground import Meter
from gumem.leases import process_name
from gumem.pipeline import Pipeline
from gumem.service import Memory
from gumem.worker import Supervisor

log = logging.getLogger(__name__)


class Runtime:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._memory: Memory | None = None
        self._stop = asyncio.Event()
        self._worker: asyncio.Task[None] | None = None
        self._meter: asyncio.Task[None] | None = None

    def start_worker(self) -> None:
        """Process pending Messages in the background (left over from a crash or an
        outage, retries, or all of them in async mode), supervised: an unexpected error
        restarts it."""
        pipeline = self.memory.pipeline
        if pipeline is not None and self._worker is None:
            self._stop.clear()
            supervisor = Supervisor(pipeline.run_worker, pipeline.status)
            self._worker = asyncio.create_task(supervisor.run(self._stop))

    def start_foreground(self) -> None:
        """Publish this API's recall rate (gumem/foreground.py): while it serves agents,
        workers anywhere process only their share of the time."""
        memory = self.memory
        if memory.meter is None and self.settings.foreground_busy_rps > 0:
            memory.meter = Meter(memory.db, self.settings, process_name())
            self._meter = asyncio.create_task(memory.meter.run(self._stop))

    def health(self) -> dict[str, Any]:
        """Cheap (no query): the worker's state and the extraction processes."""
        pipeline = self._memory.pipeline if self._memory is not None else None
        if pipeline is None:
            return {"ok": self._memory is not None, "worker": None, "extraction": None}
        w, x = pipeline.status, pipeline.extractor.status()
        return {
            "ok": True,
            "worker": {
                "state": w.state,
                "restarts": w.restarts,
                "lastError": w.last_error,
                "lastSuccess": w.last_success.isoformat() if w.last_success else None,
                "pendingUsers": w.pending_users,
            },
            "extraction": {"mode": x.mode, "processes": x.processes, "replaced": x.replaced},
        }

    @property
    def memory(self) -> Memory:
        if self._memory is None:
            raise StorageUnavailable("service is not started")
        return self._memory

    async def start(self, apply: bool = True, process: bool = True) -> Memory:
        """Connect, bind neomodel, install the schema (`apply`) and, with `process`, load the
        models and start the pipeline's extractor; without it (an admin read such as
        `gumem show`) the service reads and nothing is processed."""
        driver = make_driver(self.settings)
        db = Database(
            driver,
            self.settings.neo4j_database,
            self.settings.query_timeout_s,
            self.settings.neo4j_call_timeout_s,
        )
        try:
            await driver.verify_connectivity()
        except Exception as exc:
            await driver.close()
            raise StorageUnavailable(
                "storage unavailable: cannot connect to Neo4j (is it running? in a checkout: "
                "`python -m tools neo4j start`)"
            ) from exc
        await bind_models(db)  # neomodel uses this driver, never one of its own
        if not process:
            if apply:
                await apply_schema(db)
            self._memory = Memory(db, self.settings)
            log.info("runtime started (reads only)")
            return self._memory
        pipeline = Pipeline(db, self.settings)
        pipeline.models.embedder  # noqa: B018 - loaded here, not by the first request
        if apply:
            await apply_schema(db)
        await pipeline.extractor.start()  # paid once, here, not by the first request
        self._memory = Memory(db, self.settings, pipeline)
        log.info("runtime started")
        return self._memory

    async def close(self) -> None:
        if self._meter is not None:
            self._stop.set()
            await self._meter
            self._meter = None
        if self._worker is not None:
            self._stop.set()
            try:  # a user in hand is finished, or cancelled: its lease is released either way
                await asyncio.wait_for(self._worker, self.settings.worker_stop_s)
            except TimeoutError:
                log.warning(
                    "worker cancelled after %.0f s of shutdown", self.settings.worker_stop_s
                )
            self._worker = None
        if self._memory is not None:
            await self._memory.drain(self.settings.process_timeout_s)
            if self._memory.pipeline is not None:
                await self._memory.pipeline.extractor.close()
            self._memory.close()
            await self._memory.db.driver.close()
            self._memory = None
