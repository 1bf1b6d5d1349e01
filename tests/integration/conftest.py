"""Integration tests run against a real Neo4j 5 that this test session starts and owns.

By default a fresh test Neo4j is started from the project's launcher in its own home and
ports (never the dev one) and stopped at the end. GUMEM_TEST_NEO4J_URI may point to
another server instead; the tests refuse it unless it is empty or marked as ours.
"""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from core.settings import ROOT, Settings
from graph.db import Database, make_driver
from service.memory import Memory
from service.pipeline import Pipeline
from service.runtime import Runtime

MARKER = "_GumemTestDb"
TEST_HOME = Path(os.environ.get("GUMEM_TEST_NEO4J_HOME", ROOT / ".gumem" / "test-neo4j"))
BOLT_PORT = int(os.environ.get("GUMEM_TEST_BOLT_PORT", "7688"))
HTTP_PORT = int(os.environ.get("GUMEM_TEST_HTTP_PORT", "7475"))
PASSWORD = "gumem-test-password"


SERVER: list[str] = []  # the server's version, printed once at the end of the run


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for line in SERVER[:1]:
        terminalreporter.write_line(line)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "integration" in str(item.fspath):
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
def neo4j_uri() -> Iterator[str]:
    external = os.environ.get("GUMEM_TEST_NEO4J_URI")
    if external:
        yield external
        return
    from tools import neo4j_dev

    neo4j_dev.stop(TEST_HOME)
    shutil.rmtree(TEST_HOME, ignore_errors=True)  # always a database this run created
    # a loaded machine (several checkouts testing at once) may need longer than 180 s
    start_s = float(os.environ.get("GUMEM_TEST_NEO4J_START_S", "180"))
    server = neo4j_dev.start(TEST_HOME, BOLT_PORT, HTTP_PORT, PASSWORD, timeout_s=start_s)
    try:
        yield server.bolt_uri
    finally:
        neo4j_dev.stop(TEST_HOME)


@pytest.fixture(scope="session")
def settings(neo4j_uri: str, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    password = os.environ.get("GUMEM_TEST_NEO4J_PASSWORD", PASSWORD)
    return Settings(
        neo4j_uri=neo4j_uri,
        neo4j_password=SecretStr(password),
        api_keys=SecretStr("key-a=tenant-a,key-b=tenant-b"),
        # tests read what they just wrote: on a loaded machine sync processing may take
        # longer than the 30 s default budget (tests of the budget set their own)
        process_timeout_s=300.0,
    )


async def _claim(db: Database) -> None:
    """Refuse a database we did not create: it must be empty or carry our marker."""
    rows = await db.rows(f"MATCH (m:{MARKER}) RETURN count(m) AS n")
    if rows[0]["n"]:
        return
    rows = await db.rows("MATCH (n) RETURN count(n) AS n")
    if rows[0]["n"]:
        pytest.exit("refusing to run: the test Neo4j holds data this test run did not create", 3)
    async with db.driver.session(database=db.database) as s:
        await (await s.run(f"CREATE (:{MARKER} {{token: $t}})", t=uuid.uuid4().hex)).consume()


@pytest.fixture(scope="session")
async def runtime(settings: Settings) -> AsyncIterator[Runtime]:
    rt = Runtime(settings)
    memory = await rt.start()
    await _claim(memory.db)
    version = await memory.server_version()
    SERVER.append(f"[gumem] integration tests ran against Neo4j {version} at {settings.neo4j_uri}")
    yield rt
    await rt.close()


@pytest.fixture
async def memory(runtime: Runtime) -> AsyncIterator[Memory]:
    mem = runtime.memory
    await reset(mem.db)
    yield mem


async def reset(db: Database) -> None:
    async with db.driver.session(database=db.database) as s:
        await (await s.run(f"MATCH (n) WHERE NOT n:{MARKER} DETACH DELETE n")).consume()


@pytest.fixture
def db(memory: Memory) -> Database:
    return memory.db


@pytest.fixture
async def other(memory: Memory, settings: Settings) -> AsyncIterator[Pipeline]:
    """A second processor as another process has it: its own driver and Pipeline, so
    its own in-process locks (the models are shared only to save memory)."""
    db = Database(make_driver(settings), settings.neo4j_database)
    assert memory.pipeline is not None
    yield Pipeline(db, settings, memory.pipeline.models)
    await db.driver.close()


@pytest.fixture
async def client(
    settings: Settings, runtime: Runtime, memory: Memory
) -> AsyncIterator[httpx.AsyncClient]:
    from api.app import create_app

    app = create_app(settings, runtime)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        yield c
