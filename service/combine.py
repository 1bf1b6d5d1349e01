"""Requests to process users, combined into units of work (a group commit): while units
run, the users that other requests ask for wait, and the next unit takes them together, at
most `most` users each and `lanes` units at once. A lone request starts a unit at once."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from collections.abc import Awaitable, Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)


class Combiner(Generic[K]):
    """`run(keys)` → how much was done per key; `process` asks for keys and waits."""

    def __init__(
        self, run: Callable[[list[K]], Awaitable[dict[K, int]]], most: int, lanes: int
    ) -> None:
        self._run = run
        self.most = most
        self.lanes = lanes
        self._queue: dict[K, asyncio.Future[int]] = {}  # asked for, not yet in a unit
        self._lanes: set[asyncio.Task[None]] = set()
        self._starting = 0  # lanes started that have not taken their first unit yet

    async def process(self, keys: list[K]) -> int:
        """Wait until a unit that started after this call has processed each key; the
        sum of what was done. A unit's error is raised to every request in it."""
        loop = asyncio.get_running_loop()
        asks = [self._queue.setdefault(k, loop.create_future()) for k in dict.fromkeys(keys)]
        self._spawn()
        # shielded: a request that stops waiting leaves the unit to go on for the others
        return sum(await asyncio.gather(*(asyncio.shield(a) for a in asks)))

    def _spawn(self) -> None:
        """Start a lane for what is queued, unless one started has yet to take it (it will
        take all of it, up to `most`) or every lane is busy."""
        if self._queue and not self._starting and len(self._lanes) < self.lanes:
            self._starting += 1
            lane = asyncio.ensure_future(self._lane())
            self._lanes.add(lane)
            lane.add_done_callback(self._lanes.discard)

    async def _lane(self) -> None:
        starting = True
        try:
            while self._queue:
                keys = list(itertools.islice(self._queue, self.most))
                asks = {k: self._queue.pop(k) for k in keys}
                if starting:
                    starting = False
                    self._starting -= 1
                    self._spawn()  # more than one unit's worth queued: another lane
                await self._unit(keys, asks)
        finally:
            if starting:  # ended before taking a unit (another lane took the queue)
                self._starting -= 1
            # not counted as busy from here: a request queued next starts a lane of its own
            if (me := asyncio.current_task()) is not None:
                self._lanes.discard(me)

    async def _unit(self, keys: list[K], asks: dict[K, asyncio.Future[int]]) -> None:
        try:
            done = await self._run(keys)
        except Exception as exc:
            for ask in asks.values():
                if not ask.done():
                    ask.set_exception(exc)
                    # retrieved: a request that stopped waiting leaves no warning
                    ask.add_done_callback(_retrieve)
            return
        except BaseException:  # cancelled (the process stops): so are its requests
            for ask in asks.values():
                ask.cancel()
            raise
        for k, ask in asks.items():
            if not ask.done():
                ask.set_result(done.get(k, 0))


def _retrieve(ask: asyncio.Future[int]) -> None:
    with contextlib.suppress(BaseException):
        ask.exception()
