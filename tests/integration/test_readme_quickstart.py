"""The README's quickstart, run as written: its bash blocks (curl) and its Python block
against a real uvicorn API on the test Neo4j. Only GUMEM_URL and GUMEM_API_KEY, which the
README tells the reader to export, are set by the test instead."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from pydantic import SecretStr

from api.app import create_app
from core.settings import ROOT, Settings
from service.memory import Memory
from tests.integration.helpers import free_port, served

README = ROOT / "README.md"
KEY = "readme-quickstart-key"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```$", re.M | re.S)
EXPORT = re.compile(r"^export (GUMEM_URL|GUMEM_API_KEY)=(\S+)(?:[ \t]+#.*)?$", re.M)


def quickstart() -> list[tuple[str, str]]:
    """(language, code) of every fenced block between the quickstart markers."""
    text = README.read_text(encoding="utf-8")
    start = text.index("<!-- quickstart")
    end = text.index("<!-- /quickstart -->", start)
    return [(m[1], m[2]) for m in FENCE.finditer(text[start:end])]


@pytest.fixture
def server(settings: Settings, memory: Memory) -> Iterator[str]:
    """`make run`'s API, with a key of tenant `dev` as it prints, on a free port."""
    port = free_port()
    app = create_app(
        settings.model_copy(update={"port": port, "api_keys": SecretStr(f"{KEY}=dev")})
    )
    with served(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")):
        yield f"http://127.0.0.1:{port}/graphql"


def test_the_readme_tells_what_to_export_and_make_run_serves_there() -> None:
    exported = {m[1]: m[2] for _, code in quickstart() for m in EXPORT.finditer(code)}
    assert set(exported) == {"GUMEM_URL", "GUMEM_API_KEY"}
    defaults = Settings.model_fields
    assert exported["GUMEM_URL"] == (
        f"http://{defaults['host'].default}:{defaults['port'].default}/graphql"
    )


def _ran(argv: list[str], env: dict[str, str]) -> str:
    """The stdout of a README command run from the checkout; it must succeed."""
    done = subprocess.run(
        argv, env=env, cwd=ROOT, capture_output=True, text=True, timeout=900, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _run_bash(code: str, env: dict[str, str]) -> dict[str, Any]:
    body: dict[str, Any] = json.loads(_ran(["bash", "-euo", "pipefail", "-c", code], env))
    assert "errors" not in body, body["errors"]
    return body["data"]  # type: ignore[no-any-return]


def test_the_quickstart_runs_as_written(server: str, tmp_path: Path) -> None:
    assert shutil.which("curl"), "the README's quickstart needs curl"
    env = {**os.environ, "GUMEM_URL": server, "GUMEM_API_KEY": KEY}
    blocks = quickstart()
    answers: dict[str, Any] = {}
    for lang, code in blocks:
        if lang != "bash":
            continue
        code = EXPORT.sub("", code)  # the test's own URL and key stand in for these lines
        if not code.strip():
            continue
        data = _run_bash(code, env)
        (field,) = data
        answers[field] = data[field]
    assert set(answers) == {"addMessages", "memory", "facts", "trace"}

    added = answers["addMessages"]
    assert added["errors"] == [] and added["duplicates"] == []
    assert added["accepted"] == ["m1", "m2", "m3"] and added["processed"] == 3

    memory = answers["memory"]
    context = memory["formattedContext"]
    assert "running shoes" in context and "1000" in context
    assert "superseded by" in context  # m1's old budget, corrected by m3
    shown = README.read_text(encoding="utf-8").split("Its `formattedContext`:", 1)[1]
    (example,) = FENCE.findall(shown)[:1]
    tag = re.compile(r"^\s*- \[([\w:]+)\]", re.M)
    assert sorted(tag.findall(example[1])) == sorted(tag.findall(context)), "README example"
    items = memory["midTermContext"]
    assert any(i["kind"] == "fact" and i["sourceMessageIds"] == ["m3"] for i in items)

    facts = answers["facts"]
    old = [f for f in facts if f["validity"] == "superseded"]
    assert old and all(f["sourceMessageIds"] == ["m1"] and f["supersededBy"] for f in old)
    assert any("1000" in f["content"] and f["validity"] == "active" for f in facts)

    trace = answers["trace"]
    assert trace["rootKind"] == "Message"
    assert {"Message", "Fact", "Summary", "Topic"} <= {n["label"] for n in trace["nodes"]}
    assert {"SOURCE", "SUPERSEDES"} <= {e["type"] for e in trace["edges"]}
    assert "MATCH" in trace["cypher"]

    (python,) = [code for lang, code in blocks if lang == "python"]
    script = tmp_path / "quickstart.py"
    script.write_text(python, encoding="utf-8")
    # this checkout's gumem, as `.venv/bin/python quickstart.py` run from it imports
    env["PYTHONPATH"] = str(ROOT)
    out = _ran([sys.executable, str(script)], env)
    assert "stored 3 turns, errors: []" in out
    assert "vegetarian" in out and "Thai curries" in out
    assert re.search(r"rests on \[.*'Fact'.*'Message'.*\]", out), out
