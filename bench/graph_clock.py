"""Where a benchmark's time goes in graph/: the wall time of every Database call, by the
graph/ function that made it (bench only: it wraps the Database methods while installed)."""

from __future__ import annotations

import contextlib
import sys
import time
from collections import Counter
from collections.abc import Iterator
from typing import Any

from graph.db import Database

_METHODS = ("rows", "write_rows", "records", "read", "write")
_PASS_THROUGH = ("graph.db", "graph.queries", "bench.graph_clock")


class GraphClock:
    """Seconds and calls per calling function (`module.function`)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}
        self.calls: Counter[str] = Counter()

    def reset(self) -> None:
        self.seconds.clear()
        self.calls.clear()

    def top(self, n: int = 12) -> list[dict[str, Any]]:
        return [
            {"call": k, "seconds": round(s, 4), "calls": self.calls[k]}
            for k, s in sorted(self.seconds.items(), key=lambda kv: -kv[1])[:n]
        ]

    @contextlib.contextmanager
    def installed(self) -> Iterator[GraphClock]:
        originals = {m: getattr(Database, m) for m in _METHODS}
        for name, orig in originals.items():
            setattr(Database, name, self._timed(orig))
        try:
            yield self
        finally:
            for name, orig in originals.items():
                setattr(Database, name, orig)

    def _timed(self, orig: Any) -> Any:
        async def timed(db: Database, *args: Any, **kwargs: Any) -> Any:
            where = _caller()
            t0 = time.perf_counter()
            try:
                return await orig(db, *args, **kwargs)
            finally:
                self.seconds[where] = self.seconds.get(where, 0.0) + time.perf_counter() - t0
                self.calls[where] += 1

        return timed


def _caller() -> str:
    frame = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__", "").startswith(_PASS_THROUGH):
        frame = frame.f_back  # type: ignore[assignment]
    if frame is None:
        return "?"
    return f"{frame.f_globals.get('__name__')}.{frame.f_code.co_name}"
