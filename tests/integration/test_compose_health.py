"""The compose healthchecks and the image's commands, run as written (there is no Docker
engine here): the Neo4j healthcheck against the test Neo4j, the API's, the worker's and the
MCP server's commands with their compose environment, and their healthchecks.

cypher-shell comes from Maven Central (tools/cypher-shell), the same tool the Neo4j image
ships; a wrapper named `cypher-shell` points it at the test server."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from core.settings import ROOT, Settings
from tests.unit.test_compose import _defaults, compose, dockerfile, lay_out
from vectors.embedding import MARKER_FILENAME, MODEL_DIRNAME, ONNX_FILENAME

TOOL = ROOT / "tools" / "cypher-shell"


@pytest.fixture(scope="module")
def cypher_shell(tmp_path_factory: pytest.TempPathFactory, settings: Settings) -> Path:
    lib = TOOL / "target" / "lib"
    if not any(lib.glob("cypher-shell-*.jar")):
        mvn = shutil.which("mvn")
        if mvn is None:
            pytest.fail("Maven (mvn) is needed to build tools/cypher-shell")
        subprocess.run([mvn, "-q", "-B", "package"], cwd=TOOL, check=True, timeout=600)
    bin_dir = tmp_path_factory.mktemp("bin")
    wrapper = bin_dir / "cypher-shell"
    wrapper.write_text(
        f'#!/bin/sh\nexec java -cp "{lib}/*" org.neo4j.shell.Main -a "{settings.neo4j_uri}" "$@"\n'
    )
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    return bin_dir


def run_healthcheck(bin_dir: Path, auth: str) -> int:
    test = compose()["services"]["neo4j"]["healthcheck"]["test"]
    assert test[0] == "CMD-SHELL"
    command = test[1].replace("$$", "$")  # compose's escape for a literal $
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "NEO4J_AUTH": auth}
    return subprocess.run(["/bin/sh", "-c", command], env=env, timeout=120).returncode


def test_healthcheck_passes_with_the_configured_password(
    cypher_shell: Path, settings: Settings
) -> None:
    password = settings.neo4j_password.get_secret_value()
    assert run_healthcheck(cypher_shell, f"neo4j/{password}") == 0


def test_healthcheck_fails_with_another_password(cypher_shell: Path) -> None:
    assert run_healthcheck(cypher_shell, "neo4j/not-the-password") != 0


# The image's own commands, outside Docker: /app laid out as the Dockerfile's COPY lines
# leave it, the model converted as its RUN line does, the API's CMD and the worker and MCP
# services' commands run with their compose environment against the test Neo4j, and the
# API's and MCP's healthcheck run as written. Inside the container the port is 8000 and the
# host 0.0.0.0; here a free loopback port stands in for both.


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return lay_out(tmp_path_factory.mktemp("image") / "app")


def image_env(service: str, settings: Settings, port: int, home: Path) -> dict[str, str]:
    """What the service's process sees: the image's PATH (its virtualenv first) and model,
    the service's compose environment with its defaults, pointed at the test Neo4j."""
    env = {
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(home),
        "GUMEM_MODEL_CACHE": str(settings.model_cache),  # the image's is built in
        **_defaults(compose()["services"][service].get("environment", {})),
        "GUMEM_NEO4J_URI": str(settings.neo4j_uri),
        "GUMEM_NEO4J_PASSWORD": settings.neo4j_password.get_secret_value(),
        "GUMEM_HOST": "127.0.0.1",
        "GUMEM_PORT": str(port),
    }
    if "GUMEM_API_KEYS" in compose()["services"][service]["environment"]:
        env["GUMEM_API_KEYS"] = "key-a=tenant-a"
    return env


def service_command(service: str) -> list[str]:
    if service == "gumem":  # the image's CMD
        line = next(ln for ln in dockerfile() if ln.startswith("CMD "))
        command: list[str] = json.loads(line.removeprefix("CMD "))
        return command
    return list(compose()["services"][service]["command"])


def healthcheck(service: str, port: int, env: dict[str, str]) -> int:
    test = compose()["services"][service]["healthcheck"]["test"]
    assert test[0] == "CMD"
    argv = [arg.replace("127.0.0.1:8000", f"127.0.0.1:{port}") for arg in test[1:]]
    return subprocess.run(argv, env=env, capture_output=True, timeout=60).returncode


@contextmanager
def running(
    service: str, app: Path, env: dict[str, str], log: Path
) -> Iterator[subprocess.Popen[bytes]]:
    """The service's command in `app`; stopped as `docker stop` does (SIGTERM)."""
    with log.open("wb") as out:
        proc = subprocess.Popen(
            service_command(service),
            cwd=app,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            yield proc
        finally:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(120)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


def wait_until(done: Callable[[], bool], proc: subprocess.Popen[bytes], log: Path) -> float:
    """Seconds until `done()`; fails if the process exits first."""
    start = time.monotonic()
    while not done():
        assert proc.poll() is None, f"exited {proc.returncode}: {log.read_text()[-3000:]}"
        assert time.monotonic() - start < 900, f"not ready: {log.read_text()[-3000:]}"
        time.sleep(1)
    return time.monotonic() - start


def test_model_layer_converts_the_model(tmp_path: Path) -> None:
    """The Dockerfile's model step, run on what is copied before it."""
    layer = lay_out(tmp_path / "app", until="models prepare")
    run = next(ln for ln in dockerfile() if "models prepare" in ln)
    models = tmp_path / "models"
    env = {"PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env |= {"HOME": str(tmp_path), "GUMEM_MODEL_CACHE": str(models)}
    done = subprocess.run(
        shlex.split(run.removeprefix("RUN ")), cwd=layer, env=env, capture_output=True, timeout=900
    )
    assert done.returncode == 0, done.stderr.decode()[-3000:]
    assert (models / MODEL_DIRNAME / MARKER_FILENAME).is_file()
    assert (models / MODEL_DIRNAME / ONNX_FILENAME).stat().st_size > 10_000_000


@pytest.mark.parametrize("service", ["gumem", "mcp"])
def test_image_command_passes_its_healthcheck(
    service: str, app: Path, settings: Settings, tmp_path: Path
) -> None:
    port = free_port()
    env = image_env(service, settings, port, tmp_path)
    log = tmp_path / f"{service}.log"
    assert healthcheck(service, port, env) != 0  # nothing listens yet
    with running(service, app, env, log) as proc:
        took = wait_until(lambda: healthcheck(service, port, env) == 0, proc, log)
        print(f"\n[compose] {service} healthy after {took:.0f} s")
        path = "/graphql" if service == "gumem" else "/mcp"
        anonymous = httpx.post(f"http://127.0.0.1:{port}{path}", json={}, timeout=60)
        assert anonymous.status_code == 401  # the keys of GUMEM_API_KEYS are asked for
        if service == "gumem":
            r = httpx.post(
                f"http://127.0.0.1:{port}/graphql",
                json={"query": "{ __typename }"},
                headers={"Authorization": "Bearer key-a"},
                timeout=60,
            )
            assert r.json() == {"data": {"__typename": "Query"}}
        proc.send_signal(signal.SIGTERM)  # docker stop
        # uvicorn shuts down cleanly, then ends by the signal it caught (exit 143 in Docker)
        assert proc.wait(120) in (0, -signal.SIGTERM), log.read_text()[-3000:]
    assert healthcheck(service, port, env) != 0


def test_worker_command_runs_and_stops_on_sigterm(
    app: Path, settings: Settings, tmp_path: Path
) -> None:
    env = image_env("worker", settings, free_port(), tmp_path)
    log = tmp_path / "worker.log"
    with running("worker", app, env, log) as proc:
        wait_until(lambda: "runtime started" in log.read_text(), proc, log)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(120) == 0, log.read_text()[-3000:]
    assert "worker stopping" in log.read_text()
