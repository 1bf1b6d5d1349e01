"""The installable package: `uv build` makes a wheel; a fresh venv outside the checkout installs
it (with the locked runtime dependencies, no dev ones) and its `gumem serve`, run from an empty
directory against the test Neo4j, stores Messages and answers a recall. So the queries, the
schema and the Browser files travel as package data, and nothing reads the checkout."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from core.settings import ROOT, Settings
from gumem.client import Client
from service.memory import Memory
from tests.integration.helpers import seed


def _uv() -> str:
    found = shutil.which("uv") or str(Path.home() / ".local" / "bin" / "uv")
    if not Path(found).is_file():
        pytest.fail("uv is needed to build the wheel (`make install` installs it)")
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False
    )
    assert done.returncode == 0, f"{cmd[:3]} failed:\n{done.stdout[-2000:]}\n{done.stderr[-4000:]}"
    return done.stdout


def _clean_env() -> dict[str, str]:
    """The environment without anything that points Python at the checkout or its venv."""
    drop = {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONSTARTUP"}
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("GUMEM_")}
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(str(ROOT))
    )
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A venv outside the checkout with the built wheel installed; yields its bin/."""
    uv, work = _uv(), tmp_path_factory.mktemp("wheel")
    env = _clean_env()
    _run([uv, "build", "--wheel", "--out-dir", str(work / "dist")], ROOT, env)
    wheel = next((work / "dist").glob("gumem-*.whl"))
    reqs = work / "requirements.txt"
    _run(
        [uv, "export", "--frozen", "--no-dev", "--no-emit-project", "--no-hashes", "-o", str(reqs)],
        ROOT,
        env,
    )
    venv = work / "venv"
    _run([uv, "venv", "--python", sys.executable, str(venv)], work, env)
    python = venv / "bin" / "python"
    _run([uv, "pip", "install", "--python", str(python), "-r", str(reqs), str(wheel)], work, env)
    yield venv / "bin"


def test_wheel_holds_the_runtime_and_not_the_tools(installed: Path) -> None:
    probe = (
        "import importlib.util as u, api, core, cypher, doors, extract, graph, gumem, service, web;"
        "from graph.queries import query;"
        "print(graph.__file__);"
        "from graph.trace import browser_cypher;"
        "print(len(query('recall')) > 0);"
        "print(browser_cypher('Fact').startswith('MATCH'));"
        "print(u.find_spec('tools') is None)"
    )
    out = _run([str(installed / "python"), "-c", probe], installed.parent.parent, _clean_env())
    where, has_query, has_browser_query, no_tools = out.split()
    assert Path(where).is_relative_to(installed.parent) and not Path(where).is_relative_to(ROOT)
    assert has_query == "True" and has_browser_query == "True" and no_tools == "True"


def test_installed_gumem_serve_answers_a_recall(
    installed: Path, settings: Settings, memory: Memory, tmp_path: Path
) -> None:
    port = _free_port()
    env = _clean_env() | {
        "GUMEM_NEO4J_URI": str(settings.neo4j_uri),
        "GUMEM_NEO4J_PASSWORD": settings.neo4j_password.get_secret_value(),
        "GUMEM_PORT": str(port),
        "GUMEM_API_KEYS": "wheel-key=tenant-wheel",
        "GUMEM_MODEL_CACHE": str(settings.model_cache),  # the model `make models` prepared
        "GUMEM_EXTRACT_MODE": "thread",
        "GUMEM_PROCESS_TIMEOUT_S": "300",
        # a machine loaded by other test runs: slow answers are not what this test is about
        "GUMEM_QUERY_TIMEOUT_S": "120",
        "GUMEM_NEO4J_CALL_TIMEOUT_S": "150",
        "GUMEM_NEO4J_TIMEOUT_S": "30",
    }
    log = (tmp_path / "serve.log").open("w")
    proc = subprocess.Popen(
        [str(installed / "gumem"), "serve"],
        cwd=tmp_path,  # an empty directory: nothing of the checkout is at hand
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 240
        while True:
            assert proc.poll() is None, (
                "gumem serve exited:\n" + (tmp_path / "serve.log").read_text()
            )
            assert time.monotonic() < deadline, "gumem serve did not come up"
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        with Client(f"{url}/graphql", "wheel-key", timeout_s=300) as c:
            assert len(c.add_messages(seed("en"))["accepted"]) == 10
            mem = c.memory(
                "u-seed-en", "any more shoe picks from yesterday?", now="2026-12-01T10:00:00+08:00"
            )
        assert mem["midTermContext"] and "800" in mem["formattedContext"]
        browser = httpx.get(f"{url}/browser/gumem.grass", timeout=10)
        assert browser.status_code == 200 and "node" in browser.text
    finally:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        log.close()
