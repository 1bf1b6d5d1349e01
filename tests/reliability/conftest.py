"""Reliability tests: the integration fixtures (a test Neo4j this run owns) plus figures."""

from __future__ import annotations

import pytest

from tests.integration.conftest import (  # noqa: F401  (fixtures reused as they are)
    client,
    db,
    memory,
    neo4j_uri,
    runtime,
    settings,
)
from tests.reliability.figures import summary_lines


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    from tests.reliability.figures import FIGURES

    if FIGURES:
        for line in summary_lines():
            terminalreporter.write_line(line)
