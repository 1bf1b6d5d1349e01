"""The issue-19 benchmarks run end to end at tiny sizes on the test Neo4j (`--neo4j-uri`):
real uvicorn API and `gumem worker` processes, every op counted, no errors, every message
processed once, ratios finite. No timing thresholds: the figures are the benchmarks' job."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench import load, workers
from core.settings import Settings
from service.memory import Memory


def neo4j_args(settings: Settings, out: Path) -> list[str]:
    return [
        "--neo4j-uri",
        str(settings.neo4j_uri),
        "--neo4j-password",
        settings.neo4j_password.get_secret_value(),
        "--out",
        str(out),
    ]


async def statuses(memory: Memory, tenant: str) -> dict[str, int]:
    rows = await memory.db.rows(
        "MATCH (m:Message) WHERE m.tenant = $t RETURN m.status AS s, count(*) AS n", t=tenant
    )
    return {r["s"]: r["n"] for r in rows}


async def test_load_bench_counts_ops_without_errors(
    settings: Settings, memory: Memory, tmp_path: Path
) -> None:
    out = tmp_path / "load.json"
    argv = [
        *neo4j_args(settings, out),
        *("--clients", "2", "--duration", "8", "--warmup", "1", "--users", "3"),
        *("--prefill", "5", "--idle-queries", "6", "--workers", "1"),
        *("--env", "GUMEM_EXTRACT_MODE=thread"),
    ]
    res = await _in_thread(load.main, argv)
    assert out.is_file()
    assert res["prefill"]["messages"] == 15
    assert res["idle"]["ops"] == 6 and res["idle"]["errors"] == 0
    (ph,) = res["phases"]
    assert ph["clients"] == 2
    assert ph["errors_whole_run"] == {}, ph["error_samples"]
    for kind in ("addMessages", "recall"):
        assert ph["by_op"][kind]["ops"] >= 1 and ph["by_op"][kind]["errors"] == 0
    assert ph["all_ops"] == ph["by_op"]["addMessages"]["ops"] + ph["by_op"]["recall"]["ops"]
    assert ph["messages_acked"] == 5 * ph["by_op"]["addMessages"]["ops"]
    assert math.isfinite(ph["recall_p95_over_idle"]) and ph["recall_p95_over_idle"] > 0
    # CPU by part: the API and the worker (its extraction threads) did measurable work
    assert set(ph["cpu_s"]) >= {"api", "workers", "load generator"}
    assert ph["cpu_s"]["api"] > 0 and ph["cpu_s"]["workers"] > 0
    assert ph["left_after_settle"] == {"pending": 0, "unconsolidated": 0, "dirty": 0}
    # every message any client had acknowledged (warm-up and tail included) was processed
    acked = res["prefill"]["messages"] + ph["messages_acked_whole_run"]
    assert await statuses(memory, load.TENANT) == {"processed": acked}
    # the API's /metrics, scraped before, during and after each phase
    assert res["scrape_errors"] == {}
    assert res["idle"]["metrics"]["recall"]["count"] == 6
    loaded, drain = ph["metrics"]["loaded"], ph["metrics"]["settle"]
    assert loaded["scrapes"] >= 3  # 11 s of load, a scrape every 2 s
    assert loaded["recall"]["count"] == ph["recalls_answered_whole_run"] > 0
    assert math.isfinite(loaded["recall"]["p95_ms"]) and loaded["recall"]["p95_ms"] > 0
    assert loaded["graphql_errors"] == {}
    assert drain["pending"]["last"] == 0 and drain["oldest_pending_age_s"]["last"] == 0
    # the API's worker and the `gumem worker` share the processing
    processed = sum(m["processed"] for m in (res["prefill"]["metrics"], loaded, drain))
    assert 0 <= processed <= acked


async def test_workers_bench_processes_every_message_once(
    settings: Settings, memory: Memory, tmp_path: Path
) -> None:
    out = tmp_path / "workers.json"
    argv = [
        *neo4j_args(settings, out),
        *("--workers", "1,2", "--messages", "30", "--users", "6"),
        *("--warmup-messages", "10", "--warmup-stream", "10", "--batch", "10"),
        *("--env", "GUMEM_EXTRACT_MODE=thread"),
    ]
    res = await _in_thread(workers.main, argv)
    assert out.is_file()
    assert res["embed"]["messages"] == 30 and res["embed"]["msgs_per_s"] > 0
    assert [p["workers"] for p in res["phases"]] == [1, 2]
    for ph in res["phases"]:
        assert ph["statuses"] == {"processed": 30}
        assert ph["processed_count"] == {"1": 30}
        assert ph["left"] == {"pending": 0, "unconsolidated": 0, "dirty": 0}
        assert 1 <= ph["owners"] <= ph["workers"]
        for key in ("msgs_per_s", "over_first", "over_embedding"):
            assert math.isfinite(ph[key]) and ph[key] > 0
    assert res["phases"][0]["over_first"] == 1.0
    assert res["warmup"]["statuses"] == {"processed": 10}
    # every phase's warm-up (10) and stream, the untimed first phase's included
    assert await statuses(memory, workers.TENANT) == {"processed": 10 + 10 + 2 * (10 + 30)}


async def _in_thread(main: Callable[[list[str] | None], dict[str, Any]], argv: list[str]) -> Any:
    """A bench's main() runs its own event loop: off this test's loop."""
    return await asyncio.to_thread(main, argv)
