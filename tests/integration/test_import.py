"""`gumem import` through a real uvicorn + Neo4j: the three shapes stored, a second run
stores nothing new (resumable: every id comes back as already stored)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from doors.cli import main as cli
from gumem.client import Client
from tests.integration.test_http import server  # noqa: F401 - the fixture

DIR = Path(__file__).resolve().parent.parent / "fixtures" / "import"


def run(capsys: pytest.CaptureFixture[str], url: str, *args: str) -> dict[str, object]:
    code = cli(
        ["import", *args, "--url", url, "--key", "key-a", "--json", "--quiet", "--timeout", "600"]
    )
    out: dict[str, object] = json.loads(capsys.readouterr().out)
    assert code == 0, out
    return out


def test_import_three_shapes_and_resume(
    server: str,  # noqa: F811
    capsys: pytest.CaptureFixture[str],
) -> None:
    jsonl = [str(DIR / "chat.jsonl"), "--user", "u-imp", "--start", "2026-10-01T08:00:00+00:00"]
    first = run(capsys, server, *jsonl)
    assert first["stored"] == 4 and first["alreadyStored"] == 0 and first["rejected"] == []
    again = run(capsys, server, *jsonl)
    assert again["stored"] == 0 and again["alreadyStored"] == 4
    oa_args = ["--user", "u-trip", "--start", "2026-10-02T08:00:00+00:00"]
    oa = run(capsys, server, str(DIR / "openai.json"), *oa_args)
    assert oa["format"] == "openai" and oa["stored"] == 4
    lo = run(capsys, server, str(DIR / "locomo_mini.json"))
    assert lo["format"] == "locomo" and lo["stored"] == 4 and lo["skipped"] == {"empty content": 1}
    with Client(server, "key-a") as c:
        mem = c.memory("u-trip", "how should I travel?", now="2026-10-03T08:00:00+00:00")
        assert "train" in mem["formattedContext"].lower()
        res = c.execute('query { message(id: "demo-1:D1:1") { content userId } }')["message"]
        assert res == {"content": "I adopted a rescue greyhound last weekend!", "userId": "demo-1"}
