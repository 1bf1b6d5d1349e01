"""`gumem explain`: the debug view of what extraction keeps and why it drops the rest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from doors.cli import main

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_explain_shows_facts_and_reasons(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    msgs = json.loads((FIXTURES / "seed_zh.json").read_text())
    msgs += [
        {
            "id": "c1",
            "userId": "u-seed",
            "sessionId": "s",
            "role": "event",
            "content": "点击：Pegasus 41",
            "timestamp": "2026-11-30T10:09:00+08:00",
            "eventType": "click",
        },
        {
            "id": "g1",
            "userId": "u-seed",
            "sessionId": "s",
            "role": "user",
            "content": "谢谢！",
            "timestamp": "2026-11-30T10:10:00+08:00",
        },
    ]
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(json.dumps(m, ensure_ascii=False) for m in msgs))
    assert main(["explain", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert any("碳板" in f["content"] and not f["explicit"] for f in out["facts"])
    reasons = {r["sources"][0]: r["reason"] for r in out["rejected"]}
    assert "threshold" in reasons["c1"]
    assert "g1" in reasons
    assert not any("c1" in f["sources"] or "g1" in f["sources"] for f in out["facts"])
