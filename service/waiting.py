"""addMessages' `wait` in async mode: how long a caller may wait (`wait_bound`, at most
GUMEM_MAX_WAIT_S), and the wait itself, polling the batch's status until none of it is
pending (`wait_processed`), whoever processes it."""

from __future__ import annotations

import asyncio
import logging
import math
import time

from core.errors import InputError, StorageUnavailable
from core.settings import Settings
from graph import reads
from graph.db import Database

log = logging.getLogger(__name__)
# addMessages(wait: true) polls the batch's status this often at first, then backs off
WAIT_FIRST_POLL_S = 0.05
WAIT_MAX_POLL_S = 0.5


def wait_bound(settings: Settings, wait_s: float | None) -> float:
    """addMessages' `waitSeconds`: more than 0, at most GUMEM_MAX_WAIT_S (its default)."""
    top = settings.max_wait_s
    if wait_s is None:
        return top
    if not math.isfinite(wait_s) or not 0 < wait_s <= top:
        raise InputError(
            "waitSeconds", f"must be more than 0 and at most {top:g} (GUMEM_MAX_WAIT_S)"
        )
    return wait_s


async def wait_processed(db: Database, tenant: str, ids: list[str], bound_s: float) -> bool:
    """Poll the status of `ids`, backing off from WAIT_FIRST_POLL_S to WAIT_MAX_POLL_S,
    until none is pending (True) or `bound_s` has passed (False). The batch is durable
    already: a storage outage ends the wait (False) rather than failing the call."""
    deadline = time.monotonic() + bound_s
    delay = WAIT_FIRST_POLL_S
    left = ids
    while left:
        try:
            found = await reads.message_status(db, tenant, left)
        except StorageUnavailable:
            log.warning("wait for processing ended: storage unavailable")
            return False
        # an id gone meanwhile (deleted) is no longer pending either
        left = [i for i in left if (m := found.get(i)) is not None and m.status == "pending"]
        remaining = deadline - time.monotonic()
        if not left or remaining <= 0:
            break
        await asyncio.sleep(min(delay, remaining))
        delay = min(delay * 2, WAIT_MAX_POLL_S)
    return not left
