"""The process's Prometheus metrics (prometheus-client), defined once: graph/, gumem/ and
api/ record them, api/app.py serves them at /metrics. Label values are kinds and codes,
never ids or content. Counts and timings are this process's (a separate `gumem worker`
keeps its own); the queue gauges are read from Neo4j at each scrape and cover them all."""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from prometheus_client import Counter, Gauge, Histogram

P = ParamSpec("P")
T = TypeVar("T")

# batch work: a user's pending Messages at once, from tens of milliseconds to minutes
WORK_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
RECALL_BUCKETS = (0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)

PENDING = Gauge("gumem_pending_messages", "Messages waiting to be processed (all tenants)")
OLDEST_PENDING = Gauge(
    "gumem_oldest_pending_age_seconds", "Age of the oldest pending Message (0: none pending)"
)
NEO4J_UP = Gauge("gumem_neo4j_up", "1 if Neo4j answered this scrape's queue read, else 0")
PROCESSED = Counter("gumem_messages_processed", "Messages processed")
FAILED = Counter(
    "gumem_messages_failed", "Failed processing attempts of a Message, by reason", ["reason"]
)
EXTRACTION_SECONDS = Histogram(
    "gumem_extraction_seconds", "Extraction time of one batch", buckets=WORK_BUCKETS
)
CONSOLIDATION_SECONDS = Histogram(
    "gumem_consolidation_seconds", "Consolidation time of one user's batch", buckets=WORK_BUCKETS
)
RECALL_SECONDS = Histogram(
    "gumem_recall_seconds", "Recall latency (recalls that answered)", buckets=RECALL_BUCKETS
)
GRAPHQL_ERRORS = Counter("gumem_graphql_errors", "GraphQL errors answered, by code", ["code"])
NEO4J_FAILURES = Counter("gumem_neo4j_failures", "Failed Neo4j calls, by kind", ["kind"])
WORKER_RESTARTS = Counter(
    "gumem_worker_restarts", "Background worker restarts after an unexpected error"
)
HTTP_REQUESTS = Counter(
    "gumem_http_requests",
    "HTTP requests answered, by method, route and status",
    ["method", "route", "status"],
)


def timed(
    histogram: Histogram,
) -> Callable[[Callable[P, Awaitable[T]]], Callable[P, Awaitable[T]]]:
    """Observe an async function's time in `histogram`, for the calls that return."""

    def wrap(fn: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
        @functools.wraps(fn)
        async def inner(*args: P.args, **kwargs: P.kwargs) -> T:
            started = time.perf_counter()
            out = await fn(*args, **kwargs)
            histogram.observe(time.perf_counter() - started)
            return out

        return inner

    return wrap
