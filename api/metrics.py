"""/metrics: the process's Prometheus metrics (core/metrics.py) in the text format (or
OpenMetrics, as the scraper asks), the queue gauges read from Neo4j at each scrape.

Served without an API key (like /health: no tenant's data, only counts, kinds and codes),
unless GUMEM_METRICS_KEY is set: then only `Authorization: Bearer <that key>` scrapes."""

from __future__ import annotations

import asyncio
import hmac
import math
import time

from prometheus_client import REGISTRY
from prometheus_client.exposition import choose_encoder
from starlette.requests import Request
from starlette.responses import Response

from core.metrics import NEO4J_UP, OLDEST_PENDING, PENDING
from service.runtime import Runtime
from web.edge import error_body

QUEUE_READ_S = 2.0  # a scrape waits this long for the queue read, then shows it unknown


async def refresh_queue(rt: Runtime) -> None:
    """Set the queue gauges from Neo4j; unknown (NaN, and gumem_neo4j_up 0) if it does
    not answer in time or the service has not started."""
    try:
        async with asyncio.timeout(QUEUE_READ_S):
            depth = await rt.memory.queue_depth()
    except Exception:  # any failure: the gauges are unknown, the scrape still answers
        NEO4J_UP.set(0)
        PENDING.set(math.nan)
        OLDEST_PENDING.set(math.nan)
        return
    NEO4J_UP.set(1)
    PENDING.set(depth.pending)
    oldest = depth.oldest_s
    OLDEST_PENDING.set(0 if oldest is None else max(0.0, time.time() - oldest))


def authorized(request: Request, key: str) -> bool:
    if not key:
        return True
    given = request.headers.get("authorization", "")
    return hmac.compare_digest(given.encode(), f"Bearer {key}".encode())


async def metrics(request: Request, rt: Runtime, key: str) -> Response:
    if not authorized(request, key):
        return Response(
            error_body("UNAUTHENTICATED", "unauthenticated: /metrics needs GUMEM_METRICS_KEY"),
            status_code=401,
            media_type="application/json",
            headers={"www-authenticate": "Bearer"},
        )
    await refresh_queue(rt)
    try:
        encoder, content_type = choose_encoder(request.headers.get("accept", ""))
    except (TypeError, ValueError):  # a version it cannot compare ("version=abc"): the default
        encoder, content_type = choose_encoder("")
    return Response(encoder(REGISTRY), media_type=content_type)
