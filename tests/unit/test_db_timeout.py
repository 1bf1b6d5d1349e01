"""A Neo4j that accepts connections but never answers (as one starting up does) cannot
make a call wait past `neo4j_call_timeout_s`, whatever the driver's own retries."""

from __future__ import annotations

import socket
import time

import pytest

from core.errors import StorageUnavailable
from core.settings import Settings
from graph.db import Database, make_driver


async def test_a_silent_server_fails_the_call_within_its_budget() -> None:
    with socket.socket() as srv:
        srv.bind(("127.0.0.1", 0))
        srv.listen(16)  # the kernel accepts connections; nothing ever answers them
        s = Settings(neo4j_uri=f"bolt://127.0.0.1:{srv.getsockname()[1]}", neo4j_call_timeout_s=1.5)
        driver = make_driver(s)
        try:
            db = Database(driver, "neo4j", call_timeout_s=s.neo4j_call_timeout_s)
            t0 = time.monotonic()
            with pytest.raises(StorageUnavailable, match="did not answer"):
                await db.rows("RETURN 1 AS n")
            took = time.monotonic() - t0
        finally:
            await driver.close()
    assert took < 3.0, f"waited {took:.1f} s"  # unbounded, the driver alone waits ~20 s
