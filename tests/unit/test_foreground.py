"""Foreground first: an API's recall rate marks it busy; workers then work their share."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from core.errors import StorageUnavailable
from core.settings import Settings
from graph import pressure
from service import foreground
from service.foreground import Meter, Pacer

NOW = datetime(2026, 12, 6, 12, 0, tzinfo=UTC)
DB: Any = object()  # graph.pressure is replaced: no query is run


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def published(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, datetime]]:
    out: list[tuple[str, datetime]] = []

    async def publish(db: object, source: str, until: datetime) -> None:
        out.append((source, until))

    monkeypatch.setattr(pressure, "publish_busy", publish)
    return out


async def test_meter_publishes_only_at_the_rate(published: list[tuple[str, datetime]]) -> None:
    meter = Meter(DB, Settings(foreground_busy_rps=2.0), "api-1")
    meter.note()
    assert not await meter.tick(1.0, NOW)  # 1 recall in 1 s: below 2/s
    assert published == []
    for _ in range(4):
        meter.note()
    assert await meter.tick(2.0, NOW)  # 4 in 2 s: at the rate
    assert published == [("api-1", NOW + timedelta(seconds=foreground.HOLD_S))]
    assert not await meter.tick(1.0, NOW)  # the count starts over after each tick


async def test_meter_off_at_zero(published: list[tuple[str, datetime]]) -> None:
    meter = Meter(DB, Settings(foreground_busy_rps=0), "api-1")
    for _ in range(100):
        meter.note()
    assert not await meter.tick(1.0, NOW)
    assert published == []


def _busy(monkeypatch: pytest.MonkeyPatch, answers: list[bool | Exception]) -> list[int]:
    asked = [0]

    async def busy(db: object, now: datetime | None = None) -> bool:
        asked[0] += 1
        a = answers[min(asked[0] - 1, len(answers) - 1)]
        if isinstance(a, Exception):
            raise a
        return a

    monkeypatch.setattr(pressure, "foreground_busy", busy)
    return asked


async def test_pacer_waits_its_share_while_busy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(foreground, "CHECK_S", 0.05)
    _busy(monkeypatch, [True])
    pacer = Pacer(DB, Settings(worker_busy_share=0.5))
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    waited = await pacer.pause(0.2)  # share 1/2: as long again as it worked
    assert waited >= 0.18 and loop.time() - t0 >= 0.18
    assert pacer.waited_s == waited


async def test_pacer_does_not_wait_when_quiet_or_off(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _busy(monkeypatch, [False])
    assert await Pacer(DB, Settings(worker_busy_share=0.25)).pause(5.0) == 0.0
    assert asked[0] == 1
    assert await Pacer(DB, Settings(worker_busy_share=1.0)).pause(5.0) == 0.0
    assert asked[0] == 1  # share 1: never asks


async def test_pacer_stops_waiting_when_the_api_goes_quiet(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(foreground, "CHECK_S", 0.05)
    _busy(monkeypatch, [True, True, False])
    pacer = Pacer(DB, Settings(worker_busy_share=0.1))
    waited = await pacer.pause(5.0)  # would be 10 s (the cap) if the API stayed busy
    assert waited < 1.0


async def test_pacer_stop_ends_the_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    _busy(monkeypatch, [True])
    stop = asyncio.Event()
    pacer = Pacer(DB, Settings(worker_busy_share=0.1))
    task = asyncio.create_task(pacer.pause(5.0, stop))
    await asyncio.sleep(0.05)
    stop.set()
    assert await asyncio.wait_for(task, 2) < 1.0


async def test_pacer_asks_at_most_once_per_check(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = _busy(monkeypatch, [False])
    clock = Clock()
    pacer = Pacer(DB, Settings(), clock=clock)
    for _ in range(5):
        assert not await pacer.busy()
    assert asked[0] == 1
    clock.t += foreground.CHECK_S
    await pacer.busy()
    assert asked[0] == 2


async def test_pacer_goes_on_when_the_signal_cannot_be_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _busy(monkeypatch, [StorageUnavailable("down")])
    assert await Pacer(DB, Settings()).pause(1.0) == 0.0
    _busy(monkeypatch, [RuntimeError("odd")])
    assert await Pacer(DB, Settings()).pause(1.0) == 0.0
