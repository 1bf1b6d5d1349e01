"""A worker stopped mid-claim or mid-run leaves no live lease (service/leases.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from core.errors import QueryTimeout, StorageUnavailable
from graph import fencing
from service.leases import Leases


class FakeFencing:
    """Lease rows in memory; a claim can be made slow, a release can fail a few times."""

    def __init__(self, claim_s: float = 0.0, release_failures: int = 0) -> None:
        self.live: dict[str, int] = {}
        self.claim_s = claim_s
        self.release_failures = release_failures
        self.token = 0

    async def claim_lease(self, _db: Any, _t: str, user: str, _o: str, _ttl: float) -> int:
        await asyncio.sleep(self.claim_s)  # the claim is written at its end, as the server does
        self.token += 1
        self.live[user] = self.token
        return self.token

    async def renew_lease(self, *_a: Any) -> bool:
        return True

    async def release_lease(self, _db: Any, _t: str, user: str, _o: str, lease: int) -> None:
        if self.release_failures:
            self.release_failures -= 1
            raise StorageUnavailable("neo4j", "gone for a moment")
        if self.live.get(user) == lease:
            del self.live[user]


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeFencing:
    f = FakeFencing()
    for name in ("claim_lease", "renew_lease", "release_lease"):
        monkeypatch.setattr(fencing, name, getattr(f, name))
    return f


async def _stopped(held: Leases) -> None:
    """A worker holding the lease of "u1" is stopped 0.05 s in (a claim may be in flight)."""

    async def run() -> None:
        async with held.hold("t", "u1", 0):
            await asyncio.sleep(10)

    task = asyncio.create_task(run())
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_a_run_gives_its_lease_back(fake: FakeFencing) -> None:
    held = Leases(None, "w1", ttl_s=30)  # type: ignore[arg-type]
    async with held.hold("t", "u1", 0) as ok:
        assert ok and fake.live == {"u1": 1}
    assert fake.live == {}


async def test_a_cancel_during_the_claim_leaves_no_lease(fake: FakeFencing) -> None:
    """Stopped while the claim is in flight: the claim still lands, and is given back."""
    fake.claim_s = 0.2
    await _stopped(Leases(None, "w1", ttl_s=30))  # type: ignore[arg-type]
    assert fake.token == 1 and fake.live == {}


async def test_a_cancelled_run_and_a_failed_release_are_retried(fake: FakeFencing) -> None:
    fake.release_failures = 1
    await _stopped(Leases(None, "w1", ttl_s=30))  # type: ignore[arg-type]
    assert fake.live == {} and fake.release_failures == 0


async def test_a_release_that_times_out_is_tried_again(
    fake: FakeFencing, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A release that Neo4j stops (a query timeout, as under load) is tried once more."""
    calls = 0

    async def slow_then_fine(_db: Any, _t: str, user: str, _o: str, lease: int) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise QueryTimeout("query timeout")
        fake.live.pop(user, None)

    monkeypatch.setattr(fencing, "release_lease", slow_then_fine)
    held = Leases(None, "me", 30)  # type: ignore[arg-type]
    async with held.hold("t", "u1", 0) as got:
        assert got
    assert calls == 2 and fake.live == {}
