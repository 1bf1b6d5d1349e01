"""The worker's supervisor: an unexpected error restarts the loop, counted and typed."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
from typing import Any

import pytest

from service.worker import Supervisor, WorkerStatus, lower_priority

SECRET = "zq-secret-in-an-error-message"


async def test_restarts_after_errors_and_logs_only_the_type(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    status = WorkerStatus()
    calls = 0
    healthy = asyncio.Event()

    async def loop(stop: asyncio.Event) -> None:
        nonlocal calls
        calls += 1
        if calls <= 2:
            raise ValueError(SECRET)
        healthy.set()
        await stop.wait()

    stop = asyncio.Event()
    task = asyncio.create_task(Supervisor(loop, status, first_delay_s=0.01).run(stop))
    await asyncio.wait_for(healthy.wait(), 5)
    assert status.state == "running" and status.restarts == 2
    assert status.last_error == "ValueError"
    stop.set()
    await asyncio.wait_for(task, 5)
    assert str(status.state) == "stopped" and calls == 3
    assert "ValueError" in caplog.text and SECRET not in caplog.text


async def test_backoff_doubles_and_stop_ends_a_wait() -> None:
    status = WorkerStatus()

    async def always_broken(stop: asyncio.Event) -> None:
        raise RuntimeError("x")

    stop = asyncio.Event()
    task = asyncio.create_task(
        Supervisor(always_broken, status, first_delay_s=0.05, max_delay_s=10).run(stop)
    )
    await asyncio.sleep(0.4)  # waits 0.05, 0.1, 0.2: three or four restarts
    assert 3 <= status.restarts <= 4 and status.state == "restarting"
    stop.set()
    await asyncio.wait_for(task, 1)  # not after the current 0.4 s wait
    assert str(status.state) == "stopped"


def _nice_after(start: int, target: int, out: Any) -> None:
    os.setpriority(os.PRIO_PROCESS, 0, start)
    lower_priority(target)
    out.put(os.getpriority(os.PRIO_PROCESS, 0))


@pytest.mark.skipif(not hasattr(os, "getpriority"), reason="no nice levels on this OS")
@pytest.mark.parametrize(("start", "target", "expected"), [(0, 10, 10), (15, 10, 15)])
def test_lower_priority_only_lowers(start: int, target: int, expected: int) -> None:
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    p = ctx.Process(target=_nice_after, args=(start, target, out))
    p.start()
    p.join(60)
    assert out.get(timeout=5) == expected
