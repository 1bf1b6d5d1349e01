"""The extraction pool: a slow or failing task fails alone, the event loop stays free."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from core.settings import Settings
from extract.types import Extraction, MessageRecord
from service.extractor import Extractor, Failure, Task
from tests.unit.extraction_hooks import POISON, SLOW, hooked

T0 = datetime(2026, 11, 30, 10, tzinfo=UTC)


def chat(i: int, content: str) -> Task:
    m = MessageRecord(f"m{i}", "u1", "s1", "user", content, T0)
    return Task("chat", (m,))


@pytest.fixture(scope="module")
async def pool() -> AsyncIterator[Extractor]:
    """One pool for the module: its process loads the spaCy pipelines once (seconds)."""
    settings = Settings(extract_processes=1, extract_timeout_s=2.0)
    ex = Extractor(settings, fn=hooked)
    yield ex
    await ex.close()


async def ticker(stop: asyncio.Event) -> float:
    """The longest the event loop went without running this coroutine."""
    worst, last = 0.0, time.monotonic()
    while not stop.is_set():
        await asyncio.sleep(0.01)
        now = time.monotonic()
        worst, last = max(worst, now - last), now
    return worst


async def test_a_slow_task_times_out_alone_and_the_loop_stays_free(pool: Extractor) -> None:
    await pool.run([chat(0, "warm up")])  # the process's start-up is not the test
    replaced = pool.replaced
    stop = asyncio.Event()
    tick = asyncio.create_task(ticker(stop))
    t0 = time.monotonic()
    out = await pool.run(
        [chat(1, "I live in Berlin."), chat(2, f"{SLOW} I like tea"), chat(3, "I love jazz.")]
    )
    took = time.monotonic() - t0
    stop.set()
    worst = await tick
    assert isinstance(out[0], Extraction) and out[0].facts
    assert out[1] == Failure("timeout")
    assert isinstance(out[2], Extraction) and out[2].facts  # the neighbour after it goes on
    assert pool.replaced == replaced + 1 and pool.status().processes == 1
    assert took < 2.0 + 30  # the budget, plus one replacement process loading its models
    assert worst < 0.5, f"the event loop stalled {worst:.2f} s"


async def test_an_error_fails_its_task_alone_and_logs_no_content(
    pool: Extractor, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    secret = f"{POISON} my passport number is X-ZQ-4471"
    replaced = pool.replaced
    out = await pool.run([chat(1, "I live in Berlin."), chat(2, secret), chat(3, "I love jazz.")])
    assert out[1] == Failure("extraction_error:ValueError")
    assert isinstance(out[0], Extraction) and isinstance(out[2], Extraction)
    assert pool.replaced == replaced  # an exception does not cost the process
    assert "ValueError" in caplog.text
    assert "X-ZQ-4471" not in caplog.text and POISON not in caplog.text


async def test_a_really_long_message_past_a_tiny_budget_times_out() -> None:
    """The real extraction, a genuinely slow input (20,000 characters) and a budget far
    below what it needs: the budget holds whatever the extractor's speed."""
    settings = Settings(extract_processes=1, extract_timeout_s=0.05)
    ex = Extractor(settings)
    try:
        words = "I would like to visit Lisbon and Porto next spring with my sister, "
        out = await ex.run([chat(1, (words * 400)[:20_000])])
        assert out == [Failure("timeout")]
    finally:
        await ex.close()


async def test_cancelled_run_kills_its_process(pool: Extractor) -> None:
    await pool.run([chat(0, "warm up")])
    task = asyncio.create_task(pool.run([chat(1, f"{SLOW}")]))
    await asyncio.sleep(1)  # running the slow task
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert pool.status().processes == 0
    out = await pool.run([chat(2, "I live in Berlin.")])  # a fresh process takes over
    assert isinstance(out[0], Extraction)


async def test_thread_mode_isolates_errors() -> None:
    ex = Extractor(Settings(extract_mode="thread"), fn=hooked)
    out = await ex.run([chat(1, "I live in Berlin."), chat(2, POISON)])
    assert isinstance(out[0], Extraction) and out[1] == Failure("extraction_error:ValueError")
