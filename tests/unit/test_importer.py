"""`gumem import`: the three shapes parsed from small fixture files, skipped items counted
with their reason, stable ids (a second read gives the same messages)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from core.settings import Settings
from doors.cli import main as cli
from gumem.importer import Options, load, validate

DIR = Path(__file__).resolve().parent.parent / "fixtures" / "import"
START = datetime(2026, 11, 1, 8, 0, tzinfo=UTC)


def test_jsonl_messages_and_turns() -> None:
    loaded = load(DIR / "chat.jsonl", "auto", Options(user="u-imp"))
    assert loaded.format == "jsonl"
    good = validate(loaded, Settings())
    assert [m["role"] for m in good] == ["user", "assistant", "user"]
    assert good[0]["id"] == "j1" and all(m["userId"] == "u-imp" for m in good)
    assert good[1]["sessionId"] == "chat"  # the file's name when the line has none
    assert loaded.skipped == {
        "system turn (not the user's memory)": 1,
        "no timestamp (give --start)": 1,
        "line is not JSON": 1,
        "invalid role: must be one of user, assistant, system, tool, event": 1,
    }
    again = validate(load(DIR / "chat.jsonl", "auto", Options(user="u-imp")), Settings())
    assert [m["id"] for m in again] == [m["id"] for m in good]
    with_start = load(DIR / "chat.jsonl", "jsonl", Options(user="u-imp", start=START))
    assert len(validate(with_start, Settings())) == 4


def test_openai_conversations() -> None:
    loaded = load(DIR / "openai.json", "auto", Options(user="u-imp", start=START))
    assert loaded.format == "openai"
    good = validate(loaded, Settings())
    assert [(m["sessionId"], m["role"]) for m in good] == [
        ("conv-1", "user"),
        ("conv-1", "assistant"),
        ("conv-1", "user"),
        ("conv-2", "user"),
    ]
    assert good[2]["content"] == "I prefer trains for long distances."
    assert loaded.skipped == {
        "system turn (not the user's memory)": 1,
        "tool turn (not the user's memory)": 1,
        "empty content": 1,
    }
    no_user = load(DIR / "openai.json", "openai", Options())
    assert no_user.messages == [] and no_user.skipped["no user (give --user)"] == 7


def test_locomo_sessions_and_times() -> None:
    loaded = load(DIR / "locomo_mini.json", "auto", Options())
    assert loaded.format == "locomo"
    good = validate(loaded, Settings())
    assert [m["id"] for m in good] == ["demo-1:D1:1", "demo-1:D1:2", "demo-1:D1:3", "demo-1:D2:1"]
    assert good[0]["userId"] == "demo-1" and good[3]["sessionId"] == "demo-1:S2"
    assert good[0]["timestamp"].startswith("2024-03-02T16:15")
    assert good[2]["content"].endswith("[shares an image: a grey dog on a sofa]")
    assert good[1]["metadata"] == {"speaker": "Tomas", "self": True}
    assert loaded.skipped == {"empty content": 1}


def test_dry_run_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli(["import", str(DIR / "chat.jsonl"), "--user", "u-imp", "--dry-run", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["read"] == 7 and out["valid"] == 3 and out["stored"] == 0
    assert sum(out["skipped"].values()) == 4


def test_bad_start_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["import", str(DIR / "chat.jsonl"), "--user", "u", "--dry-run", "--start", "noon"]
    assert cli(args) == 2
    assert "--start" in capsys.readouterr().err
