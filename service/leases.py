"""Users' processing leases (graph/fencing.py) as one process holds them for its runs."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
import uuid
from collections.abc import AsyncIterator

from core.errors import QueryTimeout, StorageUnavailable
from graph import fencing
from graph.db import Database

log = logging.getLogger(__name__)
RELEASE_TRIES = 2
Key = tuple[str, str]  # (tenant, user id)


def process_name() -> str:
    """A name for this process, unique across machines (host:pid:random): the owner in
    users' processing leases, the source of an API's foreground signal."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class Leases:
    """The processing leases `owner` holds, one per user while a run of it goes on."""

    def __init__(self, db: Database, owner: str, ttl_s: float) -> None:
        self.db = db
        self.owner = owner
        self.ttl_s = ttl_s
        self._held: dict[tuple[str, str], int] = {}  # the leases this process holds

    def held(self, tenant: str, user_id: str) -> int | None:
        """The lease held on the user for the run in hand, if any."""
        return self._held.get((tenant, user_id))

    @contextlib.asynccontextmanager
    async def hold(self, tenant: str, user_id: str, wait_s: float) -> AsyncIterator[bool]:
        """Hold the user's processing lease (claimed, renewed every third of its time,
        released at the end): yields whether it was had. The lease's fencing token is part
        of the user token every write of the run checks (`Pipeline._token`)."""
        ttl = self.ttl_s
        deadline = time.monotonic() + wait_s
        while True:
            lease = await self._claim(tenant, user_id, ttl)
            if lease is not None or time.monotonic() >= deadline:
                break
            await asyncio.sleep(min(0.2, max(deadline - time.monotonic(), 0.0)))
        if lease is None:
            yield False
            return
        key = (tenant, user_id)
        self._held[key] = lease

        async def renew() -> None:
            while True:
                await asyncio.sleep(ttl / 3)
                with contextlib.suppress(StorageUnavailable):
                    if not await fencing.renew_lease(
                        self.db, tenant, user_id, self.owner, lease, ttl
                    ):
                        return  # taken: the run's next write is fenced

        heartbeat = asyncio.create_task(renew())
        try:
            yield True
        finally:
            heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await heartbeat
            self._held.pop(key, None)
            await self._release(tenant, user_id, lease)

    @contextlib.asynccontextmanager
    async def hold_many(self, users: list[Key]) -> AsyncIterator[list[Key]]:
        """Hold the processing leases of those of `users` no other owner holds, claimed in
        one transaction, renewed together every third of their time, released together
        at the end: yields the users held (a unit of work's)."""
        if not users:
            yield []
            return
        ttl = self.ttl_s
        claim = asyncio.ensure_future(fencing.claim_leases(self.db, users, self.owner, ttl))
        try:
            leases = await asyncio.shield(claim)
        except asyncio.CancelledError:  # as `_claim`: a lease taken is given back
            with contextlib.suppress(Exception):
                await self._release_many(await claim)
            raise
        self._held.update(leases)

        async def renew() -> None:
            live = dict(leases)
            while live:
                await asyncio.sleep(ttl / 3)
                with contextlib.suppress(StorageUnavailable):
                    kept = await fencing.renew_leases(self.db, live, self.owner, ttl)
                    live = {k: v for k, v in live.items() if k in kept}  # taken: fenced

        heartbeat = asyncio.create_task(renew())
        try:
            yield list(leases)
        finally:
            heartbeat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await heartbeat
            for key in leases:
                self._held.pop(key, None)
            await self._release_many(leases)

    async def _release_many(self, leases: dict[Key, int]) -> None:
        if not leases:
            return
        for attempt in range(RELEASE_TRIES):
            try:
                await fencing.release_leases(self.db, leases, self.owner)
                return
            except (StorageUnavailable, QueryTimeout):
                if attempt + 1 == RELEASE_TRIES:
                    log.warning("leases could not be given back: they expire by themselves")

    async def _claim(self, tenant: str, user_id: str, ttl: float) -> int | None:
        """Claim the lease so that a cancellation (a worker stopped mid-claim) leaves none
        behind: the claim in flight is let finish, and a lease it took is given back
        before the cancellation goes on."""
        claim = asyncio.ensure_future(
            fencing.claim_lease(self.db, tenant, user_id, self.owner, ttl)
        )
        try:
            return await asyncio.shield(claim)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                if (lease := await claim) is not None:
                    await self._release(tenant, user_id, lease)
            raise

    async def _release(self, tenant: str, user_id: str, lease: int) -> None:
        """Give the lease back, trying twice: one held after a failed release blocks the
        user for the rest of its time (or until `release_all` at the process's end)."""
        for attempt in range(RELEASE_TRIES):
            try:
                await fencing.release_lease(self.db, tenant, user_id, self.owner, lease)
                return
            except (StorageUnavailable, QueryTimeout):
                if attempt + 1 == RELEASE_TRIES:
                    log.warning("a lease could not be given back: it expires by itself")

    async def release_all(self) -> int:
        """Give back every lease this process still holds in the graph (its runs are over):
        the last step of a stopping process, whatever a cancelled claim or a failed release
        left behind. How many it gave back."""
        for attempt in range(RELEASE_TRIES):
            try:
                n = await fencing.release_owner(self.db, self.owner)
            except (StorageUnavailable, QueryTimeout):
                if attempt + 1 == RELEASE_TRIES:
                    log.warning("leases left at shutdown could not be given back")
                continue
            if n:
                log.warning("gave back %d lease(s) left behind at shutdown", n)
            return n
        return 0
