"""Checks of the whole test session: no log line holds message content (tests/leakcheck.py)."""

from __future__ import annotations

import os

import pytest

from core.settings import ROOT
from tests.leakcheck import LeakCheck, keep_as, report

ARTIFACTS = ROOT / "artifacts"
LEAKS = LeakCheck(ARTIFACTS / f"test-logs-{os.getpid()}.jsonl")
REPORT: list[str] = []


def pytest_configure(config: pytest.Config) -> None:
    LEAKS.install()


def pytest_runtest_logstart(nodeid: str) -> None:
    LEAKS.test = nodeid


def pytest_sessionfinish(session: pytest.Session) -> None:
    LEAKS.uninstall()
    dirs = [ROOT / "bench" / "results"]
    factory = getattr(session.config, "_tmp_path_factory", None)  # pytest's basetemp
    if factory is not None and factory._basetemp is not None:
        dirs.append(factory.getbasetemp())
    files = LEAKS.files_since_start(*dirs)
    hits = LEAKS.check(files)
    keep_as(LEAKS, ARTIFACTS / "test-logs.jsonl")
    REPORT[:] = report(hits, LEAKS, len(files))
    if hits:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture
def session_leaks() -> LeakCheck:
    """The session's check, for the tests of the check itself."""
    return LEAKS


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for line in REPORT:
        terminalreporter.write_line(line, red=len(REPORT) > 1)
