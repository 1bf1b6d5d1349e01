"""Extraction in worker processes, so no message can stall the API or fail its neighbours.

Each task (one chat turn, or one user's behaviour-event window) runs in a child process
that loaded the spaCy pipelines once. Past its time budget the child is killed and
replaced, that task fails with reason `timeout`, and the caller's next tasks go on. An
exception in a task fails that task alone (`extraction_error:<Type>`). The "thread" mode
runs tasks in this process (tests, `gumem explain`): no time budget there.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import logging
import multiprocessing
import signal
import threading
import traceback
import weakref
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any, Literal

from core.errors import ExtractorUnavailable
from core.settings import Settings
from extract.types import Extraction, FactDraft, MessageRecord, Rejection
from service.models import Models
from service.worker import lower_priority

log = logging.getLogger(__name__)

TIMEOUT = "timeout"
CRASHED = "crashed"  # the process died (out of memory, a signal, a native crash)


@dataclass(frozen=True)
class Task:
    kind: Literal["chat", "events"]
    messages: tuple[MessageRecord, ...]


@dataclass(frozen=True)
class Failure:
    reason: str  # timeout | crashed | extraction_error:<ExceptionType>; never content


Outcome = Extraction | Failure
ExtractFn = Callable[[Task, Models], Extraction]


PARSED_TEXTS = 8192  # event texts whose docs an extraction process keeps


class _Parsed:
    """An NLP pipeline that keeps the docs of the texts it parsed last (least recently used
    dropped first). A user's event window is aggregated again on every batch that has
    events, so without it each batch would parse the whole window (a week of events) again;
    with it a batch parses only its new texts. The docs are only read by their callers."""

    def __init__(self, nlp: Any, size: int = PARSED_TEXTS) -> None:
        self._nlp = nlp
        self._size = size
        self._docs: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()  # thread mode: tasks may run side by side

    def __call__(self, text: str) -> Any:
        with self._lock:
            doc = self._docs.get(text)
            if doc is not None:
                self._docs.move_to_end(text)
                return doc
        doc = self._nlp(text)
        with self._lock:
            self._docs[text] = doc
            while len(self._docs) > self._size:
                self._docs.popitem(last=False)
        return doc

    def __getattr__(self, name: str) -> Any:
        return getattr(self._nlp, name)


# each Models' (en, zh) pipelines with their kept docs, for as long as the Models lives
_PARSED: weakref.WeakKeyDictionary[Models, tuple[_Parsed, _Parsed]] = weakref.WeakKeyDictionary()


def _event_nlp(models: Models) -> tuple[Any, Any]:
    """The Models' pipelines (typed Any like them), each keeping its docs."""
    pair = _PARSED.get(models)
    if pair is None:
        pair = _PARSED[models] = (_Parsed(models.en), _Parsed(models.zh))
    return pair


def run_task(task: Task, models: Models) -> Extraction:
    """The extraction the service runs: one chat turn, or an event window aggregated."""
    from extract.chat.facts import extract_chats
    from extract.events.behaviour import extract_events

    if task.kind == "events":
        return extract_events(task.messages, *_event_nlp(models))
    facts: list[FactDraft] = []
    rejections: list[Rejection] = []
    for ex in extract_chats(task.messages, models.en, models.zh):
        facts.extend(ex.facts)
        rejections.extend(ex.rejections)
    return Extraction(tuple(facts), tuple(rejections))


def error_reason(exc: BaseException) -> str:
    return f"extraction_error:{type(exc).__name__}"


def log_failure(what: str, kind: str, frames: str) -> None:
    """An error's type and stack frames, never its message (it may quote the input)."""
    log.error("%s: %s\n%s", what, kind, frames)


def _die_with_parent() -> None:
    """Linux: the kernel kills this child when the API process dies (even by SIGKILL)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _serve(conn: Connection, settings: Settings, fn: ExtractFn) -> None:
    """The child: load the models once, then answer tasks one at a time until EOF."""
    _die_with_parent()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    lower_priority(settings.worker_nice)  # background work: recall and ingest go first
    models = Models(settings)
    _ = models.en, models.zh
    conn.send(("ready",))
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        seq, task = job
        try:
            answer: tuple[Any, ...] = (seq, "ok", fn(task, models))
        except Exception as exc:
            answer = (
                seq,
                "error",
                type(exc).__name__,
                "".join(traceback.format_tb(exc.__traceback__)),
            )
        try:
            conn.send(answer)
        except (EOFError, OSError):
            return
        except Exception as exc:  # an answer that cannot be pickled
            conn.send((seq, "error", type(exc).__name__, ""))


class _Child:
    """One extraction process and the thread that hands its answers to the event loop."""

    def __init__(self, settings: Settings, fn: ExtractFn) -> None:
        ctx = multiprocessing.get_context("spawn")  # never fork a process holding threads
        self._loop = asyncio.get_running_loop()
        self.inbox: asyncio.Queue[tuple[Any, ...] | None] = asyncio.Queue()
        self.conn, theirs = ctx.Pipe()
        self.proc: BaseProcess = ctx.Process(
            target=_serve, args=(theirs, settings, fn), name="gumem-extract", daemon=True
        )
        self.proc.start()
        theirs.close()
        self._seq = 0
        threading.Thread(target=self._read, name="gumem-extract-reader", daemon=True).start()

    def _read(self) -> None:
        """Until the child's end closes (it exited or was killed); then closes ours."""
        while True:
            try:
                answer: tuple[Any, ...] | None = self.conn.recv()
            except (EOFError, OSError):
                answer = None
            except Exception:  # an answer that cannot be unpickled: the current task's
                answer = (None, "error", "UnpicklingError", "")
            try:
                self._loop.call_soon_threadsafe(self.inbox.put_nowait, answer)
            except RuntimeError:  # the loop is closed
                answer = None
            if answer is None:
                self.conn.close()
                return

    async def ready(self, timeout_s: float) -> None:
        try:
            answer = await asyncio.wait_for(self.inbox.get(), timeout_s)
        except TimeoutError:
            answer = None
        if answer is None:
            self.kill()
            raise ExtractorUnavailable("extraction workers cannot start: models missing?")

    async def run(self, task: Task, timeout_s: float) -> Outcome:
        self._seq += 1
        try:
            self.conn.send((self._seq, task))
        except OSError:
            return Failure(CRASHED)
        deadline = self._loop.time() + timeout_s
        while True:
            try:
                answer = await asyncio.wait_for(self.inbox.get(), deadline - self._loop.time())
            except TimeoutError:
                return Failure(TIMEOUT)
            if answer is None:
                return Failure(CRASHED)
            if answer[0] not in (self._seq, None):
                continue  # an answer to an earlier task: impossible unless cut, skip it
            if answer[1] == "ok":
                out: Extraction = answer[2]
                return out
            log_failure("extraction failed", answer[2], answer[3])
            return Failure(f"extraction_error:{answer[2]}")

    @property
    def alive(self) -> bool:
        return self.proc.is_alive()

    def kill(self) -> None:
        """SIGKILL and reap; the reader thread sees EOF and closes the pipe."""
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(5)

    async def stop(self, timeout_s: float = 5.0) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.conn.send(None)
        await asyncio.to_thread(self.proc.join, timeout_s)
        self.kill()


@dataclass
class ExtractorStatus:
    mode: str
    processes: int  # alive now
    replaced: int  # killed past their budget or found dead


class Extractor:
    """A small supervised pool: `await run(tasks)` → one Outcome per task, in order."""

    def __init__(
        self, settings: Settings, fn: ExtractFn = run_task, models: Models | None = None
    ) -> None:
        self.settings = settings
        self.fn = fn
        self.mode = settings.extract_mode
        self._size = settings.extract_processes
        self._slots: asyncio.Semaphore | None = None
        self._idle: list[_Child] = []
        self._children: set[_Child] = set()
        self._warming: set[asyncio.Task[None]] = set()
        self._models = models  # thread mode: the caller's, loaded once
        self.replaced = 0

    def status(self) -> ExtractorStatus:
        alive = sum(1 for c in self._children if c.alive)
        return ExtractorStatus(self.mode, alive, self.replaced)

    def budget(self, task: Task) -> float:
        """Seconds a task may take: per message; an event window gets one more per 1000."""
        return self.settings.extract_timeout_s * (1 + len(task.messages) // 1000)

    async def run(self, tasks: Sequence[Task]) -> list[Outcome]:
        if not tasks:
            return []
        if self.mode == "thread":
            return await asyncio.to_thread(self._run_here, list(tasks))
        async with self._slot():
            child = self._idle.pop() if self._idle else None
            if child is not None and not child.alive:
                self._discard(child)
                child = None
            out: list[Outcome] = []
            try:
                for task in tasks:
                    if child is None:
                        child = await self._spawn()
                    outcome = await child.run(task, self.budget(task))
                    if isinstance(outcome, Failure) and outcome.reason in (TIMEOUT, CRASHED):
                        log.warning("extraction process replaced: %s", outcome.reason)
                        self._discard(child)
                        child = None
                    out.append(outcome)
            except BaseException:
                if child is not None:  # cut mid-task (cancelled): its answer would be stale
                    self._discard(child)
                    child = None
                raise
            finally:
                if child is not None:
                    self._idle.append(child)
        return out

    async def start(self) -> None:
        """Start every process and wait until each has loaded its models (seconds): the
        first messages are not kept waiting. One that cannot start is retried on use."""
        self.warm()
        await asyncio.gather(*self._warming, return_exceptions=True)

    def warm(self) -> None:
        """Start the processes in the background (model loading takes seconds)."""
        if self.mode != "process":
            return
        for _ in range(self._size - len(self._children) - len(self._warming)):
            t = asyncio.create_task(self._warm_one())
            self._warming.add(t)
            t.add_done_callback(self._warmed)

    def _warmed(self, t: asyncio.Task[None]) -> None:
        self._warming.discard(t)
        if not t.cancelled() and (exc := t.exception()) is not None:
            log.warning("extraction process did not start: %s", type(exc).__name__)

    async def _warm_one(self) -> None:
        async with self._slot():
            if len(self._children) < self._size:
                self._idle.append(await self._spawn())

    async def close(self) -> None:
        for t in list(self._warming):
            t.cancel()
        for child in list(self._children):
            await child.stop()
        self._children.clear()
        self._idle.clear()

    def _slot(self) -> asyncio.Semaphore:
        if self._slots is None:
            self._slots = asyncio.Semaphore(self._size)
        return self._slots

    async def _spawn(self) -> _Child:
        child = _Child(self.settings, self.fn)
        self._children.add(child)
        try:
            await child.ready(self.settings.extract_start_timeout_s)
        except BaseException:
            self._discard(child)
            raise
        return child

    def _discard(self, child: _Child) -> None:
        if child in self._children:
            self.replaced += 1
        self._children.discard(child)
        child.kill()

    def _run_here(self, tasks: list[Task]) -> list[Outcome]:
        if self._models is None:
            self._models = Models(self.settings)
        out: list[Outcome] = []
        for task in tasks:
            try:
                out.append(self.fn(task, self._models))
            except Exception as exc:
                log_failure(
                    "extraction failed",
                    type(exc).__name__,
                    "".join(traceback.format_tb(exc.__traceback__)),
                )
                out.append(Failure(error_reason(exc)))
        return out
