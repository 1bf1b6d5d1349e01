"""Requests combined into units of work (service/combine.py): a group commit."""

from __future__ import annotations

import asyncio

import pytest

from service.combine import Combiner


async def settle() -> None:
    """Let every ready task run until it waits."""
    for _ in range(10):
        await asyncio.sleep(0)


class Units:
    """A unit of work that takes `gate` to finish; records each unit's keys."""

    def __init__(self, fail: str | None = None) -> None:
        self.units: list[list[str]] = []
        self.gate = asyncio.Event()
        self.fail = fail

    async def run(self, keys: list[str]) -> dict[str, int]:
        self.units.append(keys)
        await self.gate.wait()
        if self.fail in keys:
            raise ValueError("injected")
        return {k: len(k) for k in keys}


async def test_requests_that_arrive_while_a_unit_runs_go_together_in_the_next() -> None:
    units = Units()
    combined = Combiner(units.run, most=3, lanes=1)
    first = asyncio.create_task(combined.process(["a"]))
    await settle()  # the first unit starts at once, alone
    assert units.units == [["a"]]
    later = [asyncio.create_task(combined.process([k])) for k in ("bb", "ccc", "dddd", "bb")]
    await settle()
    units.gate.set()
    assert await first == 1
    assert [await t for t in later] == [2, 3, 4, 2]
    # at most three users a unit; a user asked for twice meanwhile is processed once
    assert units.units == [["a"], ["bb", "ccc", "dddd"]]


async def test_lanes_bound_the_units_running_at_once() -> None:
    units = Units()
    combined = Combiner(units.run, most=1, lanes=2)
    tasks = [asyncio.create_task(combined.process([k])) for k in ("a", "b", "c")]
    await settle()
    assert units.units == [["a"], ["b"]]  # "c" waits for a lane
    units.gate.set()
    assert [await t for t in tasks] == [1, 1, 1]
    assert units.units == [["a"], ["b"], ["c"]]


async def test_a_units_error_reaches_each_of_its_requests_and_no_other() -> None:
    units = Units(fail="x")
    combined = Combiner(units.run, most=2, lanes=1)
    first = asyncio.create_task(combined.process(["a"]))
    await settle()
    mixed = [asyncio.create_task(combined.process([k])) for k in ("x", "y")]
    units.gate.set()
    assert await first == 1
    for task in mixed:
        with pytest.raises(ValueError, match="injected"):
            await task
    assert await combined.process(["z"]) == 1  # the lane goes on


async def test_a_request_that_stops_waiting_leaves_the_unit_to_the_others() -> None:
    units = Units()
    combined = Combiner(units.run, most=2, lanes=1)
    gone = asyncio.create_task(combined.process(["a"]))
    await settle()
    stays = asyncio.create_task(combined.process(["bb"]))
    gone.cancel()
    units.gate.set()
    assert await stays == 2
    assert units.units == [["a"], ["bb"]]


async def test_requests_made_before_a_lane_runs_go_in_its_first_unit() -> None:
    units = Units()
    units.gate.set()
    combined = Combiner(units.run, most=8, lanes=2)
    got = await asyncio.gather(combined.process(["a"]), combined.process(["bb"]))
    assert list(got) == [1, 2]
    assert units.units == [["a", "bb"]]  # one unit, and no second lane for nothing


async def test_a_request_after_every_lane_ended_starts_one() -> None:
    units = Units()
    units.gate.set()
    combined = Combiner(units.run, most=8, lanes=1)
    for key in ("a", "bb", "ccc"):  # each after the last lane has ended
        assert await asyncio.wait_for(combined.process([key]), 10) == len(key)
    assert units.units == [["a"], ["bb"], ["ccc"]]
