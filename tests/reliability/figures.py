"""Figures the reliability tests report; printed in one block at the end of the run."""

from __future__ import annotations

from typing import Any

FIGURES: dict[str, Any] = {}
NOTES: list[str] = []


def record(key: str, value: Any) -> None:
    FIGURES[key] = value


def add(key: str, value: int) -> None:
    FIGURES[key] = FIGURES.get(key, 0) + value


def note(text: str) -> None:
    NOTES.append(text)


ORDER = [
    ("load_ops", "load: ops held"),
    ("load_duration_s", "load: duration (s)"),
    ("load_ops_per_s", "load: throughput (ops/s)"),
    ("load_p95_ms", "load: p95 latency, all ops (ms)"),
    ("load_p95_add_ms", "load: p95 latency, addMessages (ms)"),
    ("load_p95_memory_ms", "load: p95 latency, memory (ms)"),
    ("load_errors", "load: errors"),
    ("load_messages_acked", "load: messages acknowledged"),
    ("outage_s", "outage: Neo4j down (s)"),
    ("outage_requests", "outage: requests during the outage"),
    ("outage_errors", "outage: errors during the outage"),
    ("outage_error_codes", "outage: error codes"),
    ("outage_max_latency_s", "outage: slowest request (s)"),
    ("outage_hangs", "outage: requests over the client timeout"),
    ("outage_recovery_s", "outage: first success after Neo4j back (s)"),
    ("half_written_batches", "half-written batches"),
    ("api_kill_pending", "API kill: pending Messages left by the kill"),
    ("api_kill_processed_after_restart", "API kill: processed by the startup worker"),
    ("messages_lost", "messages lost"),
    ("duplicates", "duplicates (Messages + Facts)"),
    ("facts_without_source", "Facts without SOURCE"),
    ("failed_messages", "Messages with status failed"),
    ("fuzz_cases", "fuzz cases tried"),
    ("fuzz_cases_http", "  of which through the HTTP API"),
    ("server_errors", "server errors (INTERNAL / HTTP 5xx / crash)"),
    ("invalid_accepted", "invalid input accepted"),
    ("abuse_rejected", "abusive GraphQL documents rejected"),
    ("cross_tenant_leaks", "cross-tenant leaks"),
    ("secret_leaks", "secrets in logs or errors"),
]


def summary_lines() -> list[str]:
    lines = ["", "=" * 25 + " GUMem reliability summary " + "=" * 25]
    known = {k for k, _ in ORDER}
    for key, label in ORDER:
        if key in FIGURES:
            lines.append(f"{label:<48} {FIGURES[key]}")
    for key in sorted(set(FIGURES) - known):
        lines.append(f"{key:<48} {FIGURES[key]}")
    if NOTES:
        lines.append("notes:")
        lines.extend(f"  - {n}" for n in NOTES)
    lines.append("=" * 77)
    return lines
