"""tests/leakcheck.py, the session-wide check that no log line holds message content: what
it searches for, where it finds it, and that its report names loggers and tests only."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from tests.leakcheck import LeakCheck, needle, report

SECRET = "my passport number is E48213377 and it expires in May"
# logged on purpose by the last test, which the session's check is told to forget
PLANTED = "my locker code is 4471-ZQ and the key is under the mat"
QUERY = "which locker did I say the key is in?"


def test_short_or_uniform_texts_are_not_searched() -> None:
    assert needle("yes, thanks") is None  # 11 characters
    assert needle("x" * 500) is None
    assert needle("  我下周二去上海出差，住三晚。 ") == "我下周二去上海出差，住三晚。"
    assert needle(SECRET) == SECRET[:48]


def test_a_logged_copy_is_found_with_its_logger_and_tests_never_the_content(
    tmp_path: Path,
) -> None:
    check = LeakCheck(tmp_path / "lines.jsonl")
    check.test = "t::sender"
    check.record_body({"query": "…", "variables": {"m": [{"id": "m1", "content": SECRET}]}})
    check.record_text("我下周二去上海出差，住三晚。")
    rows = [
        ("service.memory", "t::sender", "stored 1 messages (0 duplicates)"),
        ("service.pipeline", "t::other", f"failed: ValueError({SECRET[:60]!r})"),  # truncated
        ("api.schema", "t::other", "BAD_INPUT: 我下周二去上海出差，住三晚。"),
    ]
    check.out.write_text(
        "".join(
            json.dumps({"test": t, "logger": lg, "level": "INFO", "line": line}) + "\n"
            for lg, t, line in rows
        ),
        encoding="utf-8",
    )
    sub = tmp_path / "serve.log"
    sub.write_text(f"INFO service.memory: {SECRET}\nINFO ok\n", encoding="utf-8")

    hits = check.check([sub])
    assert {(h.where, h.logged_in, h.sent_by) for h in hits} == {
        ("service.pipeline", "t::other", "t::sender"),
        ("api.schema", "t::other", "t::sender"),
        (str(sub), "", "t::sender"),
    }
    lines = report(hits, check, 1)
    assert "FAILED, 3 log sources" in lines[0] and len(lines) == 4
    assert not any("passport" in line or "上海" in line for line in lines)


def test_installed_it_records_what_the_edge_parses_and_every_log_record(
    tmp_path: Path, session_leaks: LeakCheck
) -> None:
    """Installed over the session's own check (restored after): the parser wrapped where
    it is imported, records of any logger written, whatever the root logger's handlers."""
    import core.inputs
    from core.settings import Settings
    from service import memory

    before = (core.inputs.parse_message, vars(memory)["parse_text"], logging.getLogRecordFactory())
    check = LeakCheck(tmp_path / "lines.jsonl")
    check.install()
    try:
        check.test = "t::this"
        msg = {"id": "m1", "userId": "u1", "sessionId": "s1", "role": "user"}
        core.inputs.parse_batch(
            [{**msg, "content": PLANTED, "timestamp": "2026-12-01T10:00:00Z"}], Settings()
        )
        vars(memory)["parse_text"](QUERY, "query", 2000)
        quiet = logging.getLogger("leakcheck.test.quiet")
        quiet.propagate = False  # seen all the same: the record factory
        quiet.debug("a line with %s", PLANTED)
    finally:
        check.uninstall()
        session_leaks.forget(PLANTED, QUERY)
    assert (
        core.inputs.parse_message,
        vars(memory)["parse_text"],
        logging.getLogRecordFactory(),
    ) == before
    assert set(check.sent) == {PLANTED[:48], QUERY}
    assert [(h.where, h.logged_in) for h in check.check([])] == [
        ("leakcheck.test.quiet", "t::this")
    ]
