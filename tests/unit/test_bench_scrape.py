"""bench/scrape.py: snapshots parsed from the Prometheus text format, counter increases and
recall quantiles from bucket increases, the gauges' range over a phase."""

from __future__ import annotations

import math

import pytest
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from bench.scrape import Snapshot, parse, quantile, summary


class Api:
    """The metrics bench/scrape.py reads, in a registry of their own."""

    def __init__(self) -> None:
        self.reg = CollectorRegistry()
        self.pending = Gauge("gumem_pending_messages", "", registry=self.reg)
        self.oldest = Gauge("gumem_oldest_pending_age_seconds", "", registry=self.reg)
        self.processed = Counter("gumem_messages_processed", "", registry=self.reg)
        self.errors = Counter("gumem_graphql_errors", "", ["code"], registry=self.reg)
        self.recall = Histogram(
            "gumem_recall_seconds", "", buckets=(0.01, 0.05, 0.1), registry=self.reg
        )

    def snap(self, t: float) -> Snapshot:
        return parse(generate_latest(self.reg).decode(), t)


def test_quantile_interpolates_within_the_bucket() -> None:
    buckets = [(0.01, 10.0), (0.05, 20.0), (0.1, 20.0), (math.inf, 20.0)]
    assert quantile(0.5, buckets) == pytest.approx(0.01)
    assert quantile(0.95, buckets) == pytest.approx(0.046)
    assert quantile(0.25, buckets) == pytest.approx(0.005)
    # beyond the last finite bound: that bound; nothing observed: unknown
    assert quantile(0.99, [(0.1, 1.0), (math.inf, 10.0)]) == pytest.approx(0.1)
    assert math.isnan(quantile(0.5, [(0.1, 0.0), (math.inf, 0.0)]))


def test_summary_counts_only_what_moved_between_first_and_last_scrape() -> None:
    api = Api()
    for _ in range(10):  # before the phase: not the phase's
        api.recall.observe(0.09)
    api.processed.inc(7)
    api.errors.labels(code="BAD_INPUT").inc()
    snaps = [api.snap(0.0)]
    api.pending.set(40)
    api.oldest.set(3.5)
    for x in (0.005,) * 10 + (0.03,) * 10:
        api.recall.observe(x)
    snaps.append(api.snap(2.0))
    api.pending.set(0)
    api.oldest.set(0)
    api.processed.inc(40)
    api.errors.labels(code="BAD_INPUT").inc(2)
    api.errors.labels(code="TIMEOUT").inc()
    snaps.append(api.snap(4.0))

    s = summary(snaps)
    assert s["scrapes"] == 3 and s["seconds"] == 4.0
    assert s["pending"] == {"first": 0.0, "min": 0.0, "max": 40.0, "last": 0.0}
    assert s["oldest_pending_age_s"]["max"] == 3.5
    assert s["processed"] == 40
    assert s["graphql_errors"] == {"BAD_INPUT": 2, "TIMEOUT": 1}
    assert s["recall"]["count"] == 20
    assert s["recall"]["p50_ms"] == pytest.approx(10.0)
    assert s["recall"]["p95_ms"] == pytest.approx(46.0)
    assert [row[1] for row in s["series"]] == [0.0, 40.0, 0.0]


def test_one_scrape_is_no_summary() -> None:
    assert summary([Api().snap(0.0)]) == {"scrapes": 1}
