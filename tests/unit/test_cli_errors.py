"""`gumem`'s failures are one line on stderr and an exit code, never a traceback: a server
that is not there, a missing or refused key, Neo4j down for the in-process commands, bad
input. Run as subprocesses where stderr as a user sees it is the point."""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from importlib.metadata import version
from pathlib import Path

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from core.settings import ROOT
from doors import cli
from web.auth import BearerAuth

DOWN = {
    "data": None,
    "errors": [
        {
            "message": "storage unavailable: Neo4j cannot be reached",
            "extensions": {"code": "STORAGE_UNAVAILABLE"},
        }
    ],
}


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def gumem(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("GUMEM_API_KEY", "GUMEM_URL")}
    return subprocess.run(
        [sys.executable, "-m", "doors.cli", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )


def one_line(res: subprocess.CompletedProcess[str], code: int, *words: str) -> str:
    assert res.returncode == code, (res.returncode, res.stderr)
    assert "Traceback" not in res.stderr and "Traceback" not in res.stdout
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gumem: "), res.stderr
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


@pytest.fixture(scope="module")
def stub() -> Iterator[str]:
    """A server with the API's own key check (web.auth) whose /graphql answers as GUMem
    does while Neo4j is down; other paths are 404 pages, not GraphQL."""

    async def graphql(request: Request) -> JSONResponse:
        return JSONResponse(DOWN)

    app = Starlette(routes=[Route("/graphql", graphql, methods=["POST"])])
    app.add_middleware(BearerAuth, keys={"right-key": "t"}, open_paths=set())
    port = closed_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120
    while not srv.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(30)


def test_recall_against_a_closed_port_is_one_line() -> None:
    url = f"http://127.0.0.1:{closed_port()}/graphql"
    res = gumem("recall", "what shoes?", "--user", "u1", "--url", url, "--key", "k")
    one_line(res, cli.EXIT_UNREACHABLE, url, "cannot reach")


def test_the_url_comes_from_gumem_url() -> None:
    url = f"http://127.0.0.1:{closed_port()}/graphql"
    res = gumem("trace", "m1", GUMEM_URL=url, GUMEM_API_KEY="k")
    one_line(res, cli.EXIT_UNREACHABLE, url)


def test_a_missing_key_names_the_variable() -> None:
    res = gumem("recall", "what shoes?", "--user", "u1")
    one_line(res, cli.EXIT_AUTH, "GUMEM_API_KEY")


def test_a_refused_key_and_server_errors(stub: str) -> None:
    url = f"{stub}/graphql"
    refused = gumem("recall", "q", "--user", "u1", "--url", url, GUMEM_API_KEY="wrong-key")
    line = one_line(refused, cli.EXIT_AUTH, url, "GUMEM_API_KEY")
    assert "wrong-key" not in line  # a key is never echoed
    down = gumem("failed", "list", "--url", url, GUMEM_API_KEY="right-key")
    one_line(down, cli.EXIT_STORAGE, "storage unavailable")
    wrong_path = gumem("trace", "m1", "--url", f"{stub}/nope", GUMEM_API_KEY="right-key")
    one_line(wrong_path, cli.EXIT_FAILED, "HTTP 404", "not GraphQL")


def test_neo4j_down_for_the_in_process_commands() -> None:
    bolt = f"bolt://127.0.0.1:{closed_port()}"
    one_line(gumem("show", "m1", "--tenant", "t", GUMEM_NEO4J_URI=bolt), cli.EXIT_STORAGE, "Neo4j")
    # the stdio MCP server starts its runtime inside the MCP session (a task group)
    one_line(gumem("mcp", GUMEM_NEO4J_URI=bolt), cli.EXIT_STORAGE, "Neo4j")


def test_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "m1"}\n{not json\n')
    assert cli.main(["explain", str(bad)]) == cli.EXIT_USAGE
    err = capsys.readouterr().err.strip()
    assert err.splitlines() == [err] and "line 2 is not JSON" in err
    assert cli.main(["ingest", str(tmp_path / "missing.jsonl"), "--key", "k"]) == cli.EXIT_USAGE
    err = capsys.readouterr().err.strip()
    assert err.splitlines() == [err] and "missing.jsonl" in err
    res = gumem("recall", "q", "--user", "u1", "--url", "localhost:8000", "--key", "k")
    one_line(res, cli.EXIT_USAGE, "not an http(s) URL")
    res = gumem("show", "m1", "--tenant", "t", GUMEM_PORT="eighty")
    one_line(res, cli.EXIT_USAGE, "GUMEM_PORT")


def test_version_is_the_package_version() -> None:
    res = gumem("--version")
    assert res.returncode == 0 and res.stdout.strip() == f"gumem {version('gumem')}"


def test_every_argument_has_help() -> None:
    def missing(p: argparse.ArgumentParser, where: str) -> list[str]:
        out = []
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    out += missing(sub, f"{where} {name}")
            elif not action.help or action.help == argparse.SUPPRESS:
                out.append(f"{where} {'/'.join(action.option_strings) or action.dest}")
        return out

    assert missing(cli.parser(), "gumem") == []
    subs = next(a for a in cli.parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert {c.dest for c in subs._choices_actions} >= {"recall", "mcp", "import", "serve"}
    assert all(c.help for c in subs._choices_actions)  # every command in `gumem --help`
