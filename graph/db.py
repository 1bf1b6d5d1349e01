"""The Neo4j driver: one per process, opened by the app's lifespan or a CLI command."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import Any, LiteralString, TypeVar

from neo4j import (
    READ_ACCESS,
    AsyncDriver,
    AsyncGraphDatabase,
    AsyncManagedTransaction,
    AsyncResult,
    AsyncSession,
    AsyncTransaction,
    Query,
    Record,
    RoutingControl,
    unit_of_work,
)
from neo4j.api import AsyncBookmarkManager
from neo4j.exceptions import AuthError as Neo4jAuthError
from neo4j.exceptions import DriverError, Neo4jError, ServiceUnavailable, SessionExpired

from core.errors import GumemError, QueryTimeout, StorageUnavailable
from core.metrics import NEO4J_FAILURES
from core.settings import Settings

log = logging.getLogger(__name__)
T = TypeVar("T")
Params = dict[str, Any]
Work = Callable[[AsyncManagedTransaction], Awaitable[T]]  # a transaction function
Shape = Callable[[AsyncResult], Awaitable[T]]  # what a query's result is turned into

UNAVAILABLE = (ServiceUnavailable, SessionExpired, ConnectionError, OSError)


def bolt_uri(settings: Settings) -> str:
    if settings.neo4j_uri:
        return settings.neo4j_uri
    return f"bolt://127.0.0.1:{settings.dev_bolt_port}"


def make_driver(settings: Settings) -> AsyncDriver:
    return AsyncGraphDatabase.driver(
        bolt_uri(settings),
        auth=(settings.neo4j_user, settings.neo4j_password.get_secret_value()),
        connection_timeout=settings.neo4j_timeout_s,
        connection_acquisition_timeout=settings.neo4j_timeout_s * 2,
        max_transaction_retry_time=settings.neo4j_timeout_s,
        notifications_min_severity="OFF",
    )


class Database:
    """The driver plus the database name; every query of graph/ goes through here.

    Every transaction runs with `timeout_s` (GUMEM_QUERY_TIMEOUT_S): Neo4j stops one that
    runs longer and the caller gets a QueryTimeout. A whole call, the driver's retries
    included, answers or fails within `call_timeout_s` (GUMEM_NEO4J_CALL_TIMEOUT_S)."""

    def __init__(
        self,
        driver: AsyncDriver,
        database: str,
        timeout_s: float | None = None,
        call_timeout_s: float | None = None,
        bookmarks: AsyncBookmarkManager | None = None,
    ) -> None:
        self.driver = driver
        self.database = database
        self.timeout_s = timeout_s
        # a Neo4j that accepts connections but does not answer (starting up) makes no
        # request hang
        self.call_timeout_s = call_timeout_s
        # causal chaining (GUMEM_NEO4J_CAUSAL): every transaction carries the bookmarks of
        # the writes before it, so on a cluster a read never runs on a member that has not
        # seen them (consolidation plans from the Facts just written); None: no chaining
        self.bookmarks = bookmarks
        self._scope: _ReadTx | None = None  # set on the Database that `reads` yields

    async def write(self, work: Work[T]) -> T:
        return await self._run("write", work)

    async def read(self, work: Work[T]) -> T:
        return await self._run("read", work)

    async def rows(self, cypher: LiteralString, **params: Any) -> list[dict[str, Any]]:
        """One read query, its records as dicts (for queries returning maps and scalars)."""
        return await self._query(RoutingControl.READ, cypher, params, _dicts)

    async def write_rows(self, cypher: LiteralString, **params: Any) -> list[dict[str, Any]]:
        """One write query, its records as dicts."""
        return await self._query(RoutingControl.WRITE, cypher, params, _dicts)

    async def records(self, cypher: LiteralString, **params: Any) -> list[Record]:
        """One read query, raw records (graph types such as Path kept as they are)."""
        return await self._query(RoutingControl.READ, cypher, params, _records)

    @contextlib.asynccontextmanager
    async def reads(self) -> AsyncIterator[Database]:
        """A Database whose `rows` and `records` all run in one read transaction, begun by
        the first of them: one BEGIN and one COMMIT for a unit of work's reads instead of
        one pair per query. Not retried as a whole: an error in it is raised to the caller
        (StorageUnavailable for a busy or unreachable Neo4j). Writes are refused."""
        scoped = copy.copy(self)
        scoped._scope = _ReadTx(self)
        try:
            yield scoped
        finally:
            await scoped._scope.close()

    async def _query(
        self, routing: RoutingControl, cypher: LiteralString, params: Params, shape: Shape[T]
    ) -> T:
        """One query in a transaction of its own, retried as `read`/`write` are; its BEGIN
        goes out with the query (one round trip fewer than `read(work)`). In a read scope,
        one more query of the scope's transaction."""
        scope = self._scope
        if scope is not None:
            if routing != RoutingControl.READ:
                raise TypeError("a read scope runs reads only")
            return await self._guarded(lambda: scope.run(cypher, params, shape))
        return await self._guarded(
            lambda: self.driver.execute_query(
                Query(cypher, timeout=self.timeout_s),
                params,
                routing_=routing,
                database_=self.database,
                bookmark_manager_=self.bookmarks,
                result_transformer_=shape,
            )
        )

    async def _run(self, mode: str, work: Work[T]) -> T:
        if self._scope is not None:
            raise TypeError("a read scope runs single queries only (rows, records)")
        if self.timeout_s is not None:
            work = _timed(work, self.timeout_s)

        async def call() -> T:
            session = self.driver.session(database=self.database, bookmark_manager=self.bookmarks)
            async with session:
                if mode == "write":
                    return await session.execute_write(work)
                return await session.execute_read(work)

        return await self._guarded(call)

    async def _guarded(self, call: Callable[[], Awaitable[T]]) -> T:
        """`call` within `call_timeout_s`, the driver's errors as GUMem's (and counted)."""
        try:
            async with asyncio.timeout(self.call_timeout_s):
                return await call()
        except GumemError:
            raise
        except TimeoutError as exc:
            NEO4J_FAILURES.labels(kind="no_answer").inc()
            log.warning("neo4j did not answer within %.0f s", self.call_timeout_s or 0)
            raise StorageUnavailable("storage unavailable: Neo4j did not answer in time") from exc
        except Neo4jAuthError as exc:
            NEO4J_FAILURES.labels(kind="auth").inc()
            log.error("neo4j rejected the configured credentials")
            raise StorageUnavailable(
                "storage unavailable: Neo4j rejected GUMem's credentials (check GUMEM_NEO4J_*)"
            ) from exc
        except UNAVAILABLE as exc:
            NEO4J_FAILURES.labels(kind="unavailable").inc()
            log.warning("neo4j unavailable: %s", type(exc).__name__)
            raise StorageUnavailable("storage unavailable: Neo4j cannot be reached") from exc
        except (DriverError, Neo4jError) as exc:
            code = exc.code if isinstance(exc, Neo4jError) else None
            if code and "TransactionTimedOut" in code:
                NEO4J_FAILURES.labels(kind="query_timeout").inc()
                log.warning("neo4j transaction timed out")
                raise QueryTimeout(
                    f"query timeout: the database work took longer than {self.timeout_s} s"
                ) from exc
            if code and "TransientError" in code:
                NEO4J_FAILURES.labels(kind="busy").inc()
                raise StorageUnavailable("storage busy: try again") from exc
            NEO4J_FAILURES.labels(kind="error").inc()
            raise


class _ReadTx:
    """The one explicit read transaction of `Database.reads`, begun by its first query."""

    def __init__(self, db: Database) -> None:
        self._db = db
        self._session: AsyncSession | None = None
        self._tx: AsyncTransaction | None = None

    async def run(self, cypher: LiteralString, params: Params, shape: Shape[T]) -> T:
        if self._tx is None:
            db = self._db
            self._session = db.driver.session(
                database=db.database, default_access_mode=READ_ACCESS, bookmark_manager=db.bookmarks
            )
            self._tx = await self._session.begin_transaction(timeout=db.timeout_s)
        return await shape(await self._tx.run(cypher, params))

    async def close(self) -> None:
        """End the transaction (reads only: nothing to commit) and give the connection back."""
        tx, session, self._tx, self._session = self._tx, self._session, None, None
        with contextlib.suppress(DriverError, Neo4jError, *UNAVAILABLE):
            if tx is not None:
                await tx.close()
        with contextlib.suppress(DriverError, Neo4jError, *UNAVAILABLE):
            if session is not None:
                await session.close()


async def _dicts(result: AsyncResult) -> list[dict[str, Any]]:
    # dict(), not Record.data(): our queries return maps, and data() re-walks every value
    return [dict(r) async for r in result]


async def _records(result: AsyncResult) -> list[Record]:
    return [r async for r in result]


def _timed(work: Work[T], timeout_s: float) -> Work[T]:
    """`work` as a transaction function with a server-side timeout (the caller's own
    function is left as it was)."""

    @unit_of_work(timeout=timeout_s)
    async def timed(tx: AsyncManagedTransaction) -> T:
        return await work(tx)

    return timed


async def tx_rows(
    tx: AsyncManagedTransaction, cypher: LiteralString, **params: Any
) -> list[dict[str, Any]]:
    return await _dicts(await tx.run(cypher, params))


EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
TIME_KEYS = frozenset(
    {"timestamp", "time_start", "time_end", "event_start", "event_end", "created_at"}
)


def instant(value: Any) -> datetime | None:
    """A datetime a query sent as [epochSeconds, microsecond, offsetSeconds].

    Hot read paths send times this way: the driver decodes a temporal value in pure Python
    (about 0.1 ms each), three integers cost next to nothing.
    """
    if value is None or value[0] is None:
        return None
    seconds, micros, offset = value
    return (EPOCH + timedelta(seconds=seconds, microseconds=micros)).astimezone(
        timezone(timedelta(seconds=offset))
    )


def instants(value: Any, keys: frozenset[str] = TIME_KEYS) -> Any:
    """`instant` applied to every value under one of `keys`, through lists and maps."""
    if isinstance(value, dict):
        return {k: instant(v) if k in keys else instants(v, keys) for k, v in value.items()}
    if isinstance(value, list):
        return [instants(v, keys) for v in value]
    return value


def native(value: Any) -> Any:
    """Neo4j temporal values to Python ones, recursively through lists and maps."""
    if hasattr(value, "to_native"):
        return value.to_native()
    if isinstance(value, dict):
        return {k: native(v) for k, v in value.items()}
    if isinstance(value, list):
        return [native(v) for v in value]
    return value
