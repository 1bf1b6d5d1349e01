"""What one process holds: the driver (opened at start, closed at exit) and the models."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from core.errors import StorageUnavailable
from core.metrics import NEO4J_FAILURES
from core.settings import Settings
from graph.db import Database, make_driver
from graph.schema import apply_schema, bind_models
from service.foreground import Meter
from service.leases import process_name
from service.memory import Memory
from service.pipeline import Pipeline
from service.worker import Supervisor

log = logging.getLogger(__name__)


class Runtime:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._memory: Memory | None = None
        self._stop = asyncio.Event()
        self._worker: asyncio.Task[None] | None = None
        self._meter: asyncio.Task[None] | None = None
        self._starter: asyncio.Task[None] | None = None  # start_service's retries
        self.start_error: str | None = None  # why a start given up on failed (a type)

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
        """Publish this API's recall rate (service/foreground.py): while it serves agents,
        workers anywhere process only their share of the time."""
        memory = self.memory
        if memory.meter is None and self.settings.foreground_busy_rps > 0:
            memory.meter = Meter(memory.db, self.settings, process_name())
            self._meter = asyncio.create_task(memory.meter.run(self._stop))

    async def start_service(self, run_worker: bool) -> None:
        """An API process's start: `start`, then the recall meter and (`run_worker`) the
        worker. A Neo4j not reachable yet is tried again in the background, every 1 s up
        to every 30 s (/ready answers 503 until it answers); any other error is raised."""
        try:
            await self.start()
        except StorageUnavailable as exc:
            log.warning("%s; trying again in the background (/ready: 503 until then)", exc)
            self._starter = asyncio.create_task(self._start_later(run_worker))
            return
        self._serve(run_worker)

    async def _start_later(self, run_worker: bool, max_delay_s: float = 30.0) -> None:
        delay = 1.0
        while self._memory is None:
            await asyncio.sleep(delay)
            delay = min(delay * 2, max_delay_s)
            try:
                await self.start()
            except StorageUnavailable as exc:
                log.warning("%s; trying again in %.0f s", exc, delay)
            except Exception as exc:  # a model or configuration error: retrying won't help
                self.start_error = type(exc).__name__
                log.error("start failed: %s: %s", type(exc).__name__, exc)
                return
        log.info("Neo4j reachable: serving")
        self._serve(run_worker)

    def _serve(self, run_worker: bool) -> None:
        self.start_foreground()
        if run_worker:
            self.start_worker()

    @property
    def started(self) -> bool:
        return self._memory is not None

    async def ready(self) -> dict[str, Any]:
        """Readiness: started, and Neo4j answers now (within GUMEM_NEO4J_TIMEOUT_S).
        `ready` False says why in `reason`: starting, start failed, Neo4j unavailable."""
        if self._memory is None:
            reason = f"start failed: {self.start_error}" if self.start_error else "starting"
            return {"ready": False, "reason": reason}
        try:
            async with asyncio.timeout(self.settings.neo4j_timeout_s):
                version = await self._memory.server_version()
        except Exception as exc:  # whatever the failure, not ready: say its kind
            log.info("not ready: %s", type(exc).__name__)
            return {"ready": False, "reason": "neo4j unavailable"}
        return {"ready": True, "neo4j": version}

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
            driver.execute_query_bookmark_manager if self.settings.neo4j_causal else None,
        )
        try:
            await driver.verify_connectivity()
        except Exception as exc:
            await driver.close()
            NEO4J_FAILURES.labels(kind="unavailable").inc()
            raise StorageUnavailable(
                "storage unavailable: cannot connect to Neo4j (is it running? in a checkout: "
                "`python -m tools neo4j start`)"
            ) from exc
        try:
            return await self._open(db, apply, process)
        except BaseException:  # Neo4j gone meanwhile, a model missing, cancelled: nothing held
            await driver.close()
            raise

    async def _open(self, db: Database, apply: bool, process: bool) -> Memory:
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
        if self._starter is not None:
            self._starter.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._starter
            self._starter = None
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
                # its runs are over: no lease of this process outlives it
                await self._memory.pipeline.release_leases()
                await self._memory.pipeline.extractor.close()
            self._memory.close()
            await self._memory.db.driver.close()
            self._memory = None
