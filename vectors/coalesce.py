"""One model call for the passages several threads ask for at once.

A worker processes a few users side by side (Settings.worker_users); each asks for its own
handful of vectors. A model call costs less per text in bigger batches (padding, thread
start-up), so `Coalescing` lets the threads that arrive while a call runs wait and puts all
their texts in the next call. Results are the same as one call per caller: vectors do not
depend on their batch neighbours beyond float rounding, and a call that fails is made
again per caller, so one caller's bad text fails that caller only.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field

from extract.types import Embedder

MAX_TEXTS = 256  # one call embeds at most this many texts (a caller's own are never split)


@dataclass
class _Ask:
    texts: list[str]
    vectors: list[list[float]] | None = None
    error: BaseException | None = None
    done: bool = False
    ready: threading.Event = field(default_factory=threading.Event)


class Coalescing:
    """An Embedder whose concurrent `embed_passages` calls share model calls. Queries
    (recall, latency-bound) go straight to the model."""

    def __init__(self, inner: Embedder, max_texts: int = MAX_TEXTS) -> None:
        self.inner = inner
        self.max_texts = max_texts
        self._lock = threading.Lock()
        self._queue: list[_Ask] = []
        self._running = False
        self.calls = 0  # shared calls made (benchmarks)

    @property
    def dim(self) -> int:
        return self.inner.dim

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]:
        return self.inner.embed_queries(texts)

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        if isinstance(texts, str):
            raise TypeError("expected a sequence of strings, not one string")
        ask = _Ask(list(texts))
        if not ask.texts:
            return []
        with self._lock:
            self._queue.append(ask)
        while True:
            with self._lock:
                if ask.done:
                    break
                lead = not self._running
                if lead:
                    self._running = True
                    batch = self._take()
            if lead:
                self._run(batch)
            else:
                ask.ready.wait()
                ask.ready.clear()
        if ask.error is not None:
            raise ask.error
        assert ask.vectors is not None
        return ask.vectors

    def _take(self) -> list[_Ask]:
        """The queued asks of the next call, oldest first, within max_texts (at least one)."""
        batch: list[_Ask] = []
        size = 0
        while self._queue and (not batch or size + len(self._queue[0].texts) <= self.max_texts):
            ask = self._queue.pop(0)
            batch.append(ask)
            size += len(ask.texts)
        return batch

    def _run(self, batch: list[_Ask]) -> None:
        try:
            try:
                vectors = self.inner.embed_passages([t for a in batch for t in a.texts])
            except Exception:
                if len(batch) == 1:
                    raise
                # one caller's texts must not fail another's: each on its own again
                for a in batch:
                    self._run_one(a)
            else:
                start = 0
                for a in batch:
                    a.vectors = vectors[start : start + len(a.texts)]
                    start += len(a.texts)
        except BaseException as exc:  # each caller gets it, as from its own call
            for a in batch:
                if a.vectors is None and a.error is None:
                    a.error = exc
        finally:
            with self._lock:
                self.calls += 1
                self._running = False
                for a in batch:
                    a.done = True
                waiting = list(self._queue)
            for a in batch:
                a.ready.set()
            for a in waiting[:1]:  # the next leader
                a.ready.set()

    def _run_one(self, ask: _Ask) -> None:
        try:
            ask.vectors = self.inner.embed_passages(ask.texts)
        except Exception as exc:
            ask.error = exc
