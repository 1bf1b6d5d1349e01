"""The API's /metrics read by a benchmark (prometheus-client's parser): a snapshot before a
phase, one every few seconds during it and one after, and what moved in between — the
queue gauges' range, counter increases, recall latency quantiles estimated from the
histogram's bucket increases (as Prometheus' `histogram_quantile` does).

Counters and histograms are the API process's own: a separate `gumem worker`'s processing
is not in them. The queue gauges are read from Neo4j at each scrape and cover every process.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

Labels = tuple[tuple[str, str], ...]

PENDING = "gumem_pending_messages"
OLDEST = "gumem_oldest_pending_age_seconds"
PROCESSED = "gumem_messages_processed_total"
FAILED = "gumem_messages_failed_total"
RECALL = "gumem_recall_seconds"
GRAPHQL_ERRORS = "gumem_graphql_errors_total"


@dataclass
class Snapshot:
    """One scrape: every sample's value by (sample name, sorted labels)."""

    t: float  # time.monotonic() when it was read
    values: dict[tuple[str, Labels], float]

    def get(self, name: str) -> float:
        return self.values.get((name, ()), math.nan)

    def by_label(self, name: str, label: str) -> dict[str, float]:
        return {dict(ls)[label]: v for (n, ls), v in self.values.items() if n == name}

    def buckets(self, histogram: str) -> list[tuple[float, float]]:
        """A histogram's (upper bound, cumulative count), by bound; +Inf last."""
        found = self.by_label(f"{histogram}_bucket", "le")
        return sorted((float(le), n) for le, n in found.items())


def parse(text: str, t: float) -> Snapshot:
    values = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }
    return Snapshot(t, values)


def quantile(q: float, buckets: list[tuple[float, float]]) -> float:
    """The q-quantile (0..1) of cumulative bucket counts, linear within the bucket it
    falls in (the first bucket from 0); in the +Inf bucket: the highest finite bound."""
    total = buckets[-1][1] if buckets else 0.0
    if total <= 0:
        return math.nan
    rank = q * total
    lower, below = 0.0, 0.0
    for bound, cum in buckets:
        if cum >= rank:
            if math.isinf(bound):
                return lower
            inside = cum - below
            return lower + (bound - lower) * ((rank - below) / inside if inside else 1.0)
        lower, below = bound, cum
    return lower


def increase(first: dict[str, float], last: dict[str, float]) -> dict[str, float]:
    """Per label value, how much a counter grew (labels first seen later start at 0)."""
    out = {k: v - first.get(k, 0.0) for k, v in last.items()}
    return {k: v for k, v in out.items() if v}


def _range(xs: list[float]) -> dict[str, float | None]:
    known = [x for x in xs if not math.isnan(x)]
    return {
        "first": xs[0] if xs else None,
        "min": min(known) if known else None,
        "max": max(known) if known else None,
        "last": xs[-1] if xs else None,
    }


def summary(snaps: list[Snapshot]) -> dict[str, Any]:
    """What moved from the first scrape to the last, with the series in between."""
    if len(snaps) < 2:
        return {"scrapes": len(snaps)}
    first, last = snaps[0], snaps[-1]
    start = {le: n for le, n in first.buckets(RECALL)}
    window = [(le, n - start.get(le, 0.0)) for le, n in last.buckets(RECALL)]
    return {
        "scrapes": len(snaps),
        "seconds": last.t - first.t,
        "pending": _range([s.get(PENDING) for s in snaps]),
        "oldest_pending_age_s": _range([s.get(OLDEST) for s in snaps]),
        "processed": last.get(PROCESSED) - first.get(PROCESSED),
        "failed": increase(first.by_label(FAILED, "reason"), last.by_label(FAILED, "reason")),
        "recall": {
            "count": last.get(f"{RECALL}_count") - first.get(f"{RECALL}_count"),
            "p50_ms": quantile(0.5, window) * 1000,
            "p95_ms": quantile(0.95, window) * 1000,
        },
        "graphql_errors": increase(
            first.by_label(GRAPHQL_ERRORS, "code"), last.by_label(GRAPHQL_ERRORS, "code")
        ),
        # seconds since the first scrape, pending, oldest age, processed and recalls so far
        "series": [
            [
                round(s.t - first.t, 1),
                s.get(PENDING),
                round(s.get(OLDEST), 1),
                s.get(PROCESSED) - first.get(PROCESSED),
                s.get(f"{RECALL}_count") - first.get(f"{RECALL}_count"),
            ]
            for s in snaps
        ],
    }


@dataclass
class Scraper:
    """GETs `url` (the API's /metrics); `key` is GUMEM_METRICS_KEY when the API has one."""

    url: str
    key: str = ""
    every_s: float = 2.0
    errors: list[str] = field(default_factory=list)  # scrapes that failed, why

    async def scrape(self, c: httpx.AsyncClient) -> Snapshot | None:
        headers = {"Authorization": f"Bearer {self.key}"} if self.key else {}
        try:
            r = await c.get(self.url, headers=headers)
            r.raise_for_status()
        except httpx.HTTPError as exc:
            self.errors.append(type(exc).__name__)
            return None
        return parse(r.text, time.monotonic())

    @contextlib.asynccontextmanager
    async def watch(self) -> AsyncIterator[dict[str, Any]]:
        """Scrapes before, every `every_s` during and after the block; on exit the dict it
        yielded holds the summary of them all."""
        out: dict[str, Any] = {}
        snaps: list[Snapshot] = []
        async with httpx.AsyncClient(timeout=10.0) as c:

            def keep(snap: Snapshot | None) -> None:
                if snap is not None:
                    snaps.append(snap)

            async def every() -> None:
                while True:
                    await asyncio.sleep(self.every_s)
                    keep(await self.scrape(c))

            keep(await self.scrape(c))
            task = asyncio.create_task(every())
            try:
                yield out
            finally:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
                keep(await self.scrape(c))
                out.update(summary(snaps))
