"""docker-compose.yml and the Dockerfile can't run here (no Docker engine); check their shape
instead, and lay out the image's /app as the Dockerfile's COPY lines do.

tests/integration/test_compose_health.py runs the healthchecks' and the services' own
commands on that layout."""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import yaml

from core.settings import ROOT, Settings
from doors.cli import cmd_mcp, cmd_worker
from doors.cli import parser as cli_parser

# the packages the image runs
SOURCE = ("core", "extract", "graph", "service", "web", "api", "doors", "gumem", "cypher")


def compose(name: str = "docker-compose.yml") -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / name).read_text())
    return data


def dockerfile() -> list[str]:
    return (ROOT / "Dockerfile").read_text().splitlines()


def copies(until: str | None = None) -> list[tuple[list[str], str]]:
    """The Dockerfile's `COPY src... dest` lines (sources and destination), up to the first
    line holding `until`."""
    out = []
    for line in dockerfile():
        if until is not None and until in line:
            break
        if line.startswith("COPY "):
            *sources, dest = line.split()[1:]
            assert not any(s.startswith("--") for s in sources), line
            out.append((sources, dest))
    return out


def lay_out(app: Path, until: str | None = None) -> Path:
    """The image's /app as the COPY lines (up to `until`) leave it, from this checkout."""
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for sources, dest in copies(until):
        for pattern in sources:
            found = sorted(ROOT.glob(pattern))
            assert found, f"COPY {pattern}: nothing in the checkout"
            for src in found:
                into_dir = dest.endswith("/") or dest == "." or len(sources) > 1
                target = app / dest / src.name if into_dir else app / dest
                target.parent.mkdir(parents=True, exist_ok=True)
                if src.is_dir():
                    shutil.copytree(src, target, dirs_exist_ok=True, ignore=skip)
                else:
                    shutil.copy2(src, target)
    return app


def line_of(text: str) -> int:
    return next(i for i, ln in enumerate(dockerfile()) if text in ln)


def test_services_and_healthchecks() -> None:
    services = compose()["services"]
    assert services["neo4j"]["image"].startswith("neo4j:5.26")
    assert "healthcheck" in services["neo4j"] and "healthcheck" in services["gumem"]
    assert services["gumem"]["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert any(v.endswith(":/data") for v in services["neo4j"]["volumes"])


def test_env_names_match_settings() -> None:
    env = compose()["services"]["gumem"]["environment"]
    fields = {f"GUMEM_{name.upper()}" for name in Settings.model_fields}
    assert set(env) <= fields, set(env) - fields
    assert "GUMEM_NEO4J_URI" in env and "GUMEM_API_KEYS" in env


def test_neo4j_healthcheck_uses_only_the_containers_own_variables() -> None:
    neo4j = compose()["services"]["neo4j"]
    command = neo4j["healthcheck"]["test"][1].replace("$$", "$")
    used = set(re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", command))
    assert used, command
    assert used <= set(neo4j["environment"]), used - set(neo4j["environment"])


def test_ports_stay_on_loopback_unless_asked() -> None:
    services = compose()["services"]
    assert "ports" not in services["neo4j"]  # only the compose network reaches Neo4j
    for port in services["gumem"]["ports"]:
        assert port.startswith("${GUMEM_API_BIND:-127.0.0.1}:"), port
    for port in services["mcp"]["ports"]:
        assert port.startswith("${GUMEM_MCP_BIND:-127.0.0.1}:"), port
    for port in compose("compose.browser.yml")["services"]["neo4j"]["ports"]:
        assert port.startswith("127.0.0.1:"), port


def test_image_runs_as_an_unprivileged_user() -> None:
    lines = (ROOT / "Dockerfile").read_text().splitlines()
    users = [ln.split()[1] for ln in lines if ln.startswith("USER ")]
    assert users and users[-1] not in {"root", "0"}
    cmd = max(i for i, ln in enumerate(lines) if ln.startswith("CMD "))
    assert max(i for i, ln in enumerate(lines) if ln.startswith("USER ")) < cmd


def _defaults(env: dict[str, str]) -> dict[str, str]:
    """The values compose gives these variables with nothing set: `${X:-d}` is d; a value
    with no default (`${X}`, `${X:?...}`) is left out."""
    out = {}
    for name, value in env.items():
        if "${" not in value:
            out[name] = value
        elif m := re.fullmatch(r"\$\{[A-Za-z_][A-Za-z0-9_]*:-([^}]*)\}", value):
            out[name] = m.group(1)
    return out


def test_worker_service_scales_on_the_api_image() -> None:
    """`docker compose up --scale worker=3`: the same image as the API, `gumem worker`, no
    published port and nothing that names one container (which scaling forbids)."""
    services = compose()["services"]
    api, worker = services["gumem"], services["worker"]
    assert worker["image"] == api["image"] and worker["build"] == api["build"]
    assert worker["command"] == ["python", "-m", "doors.cli", "worker"]
    args = cli_parser().parse_args(worker["command"][3:])
    assert args.func is cmd_worker and not args.once
    for key in ("ports", "container_name", "hostname", "healthcheck"):
        assert key not in worker, key
    assert worker["depends_on"]["neo4j"]["condition"] == "service_healthy"
    # the API applies the schema at start; workers start once it answers
    assert worker["depends_on"]["gumem"]["condition"] == "service_healthy"


def test_worker_environment_is_the_apis_neo4j_without_keys() -> None:
    services = compose()["services"]
    api, worker = services["gumem"]["environment"], services["worker"]["environment"]
    fields = {f"GUMEM_{name.upper()}" for name in Settings.model_fields}
    assert set(worker) <= fields, set(worker) - fields
    for name in ("GUMEM_NEO4J_URI", "GUMEM_NEO4J_USER", "GUMEM_NEO4J_PASSWORD"):
        assert worker[name] == api[name], name
    assert worker["GUMEM_PROCESS_MODE"] == api["GUMEM_PROCESS_MODE"]
    assert "GUMEM_API_KEYS" not in worker and "GUMEM_PORT" not in worker


def test_api_keeps_its_own_worker_unless_configured() -> None:
    api = compose()["services"]["gumem"]["environment"]
    assert api["GUMEM_RUN_WORKER"].startswith("${")  # configurable ...
    defaults = _defaults(api) | _defaults(compose()["services"]["worker"]["environment"])
    assert defaults["GUMEM_RUN_WORKER"] == "true"  # ... on by default
    # every default compose gives is a value the settings accept
    values = {k.removeprefix("GUMEM_").lower(): v for k, v in defaults.items()}
    s = Settings.model_validate({**values, "neo4j_password": "a-production-password"})
    assert s.run_worker is True and s.process_mode == "sync"


def test_every_service_restarts_unless_stopped() -> None:
    services = compose()["services"]
    assert {name: svc.get("restart") for name, svc in services.items()} == dict.fromkeys(
        services, "unless-stopped"
    )


def _seconds(duration: str) -> int:
    m = re.fullmatch(r"(\d+)s", duration)
    assert m, duration
    return int(m.group(1))


def test_healthchecks_give_the_start_time() -> None:
    """A process still loading its models is not counted unhealthy: every healthcheck has a
    start_period; the API's and MCP's are long enough to connect and load the model."""
    services = compose()["services"]
    for name, svc in services.items():
        if name == "worker":  # no port to ask; it is restarted if it exits
            continue
        check = svc["healthcheck"]
        assert _seconds(check["timeout"]) <= _seconds(check["interval"]), name
        assert _seconds(check["start_period"]) >= 30, name
    for name in ("gumem", "mcp"):
        check = services[name]["healthcheck"]
        assert _seconds(check["start_period"]) >= 60, name
        assert check["test"][0] == "CMD"  # exec form: the image's python asks, no curl needed
        assert re.search(r"http://127\.0\.0\.1:8000/(health|ready)\b", check["test"][-1]), name


def test_mcp_service_is_optional_streamable_http_with_the_api_keys() -> None:
    services = compose()["services"]
    api, mcp = services["gumem"], services["mcp"]
    assert mcp["profiles"] == ["mcp"]  # only with `docker compose --profile mcp up`
    assert "profiles" not in api and "profiles" not in services["worker"]
    assert mcp["image"] == api["image"] and mcp["build"] == api["build"]
    assert mcp["command"][:3] == ["python", "-m", "doors.cli"]
    args = cli_parser().parse_args(mcp["command"][3:])
    assert args.func is cmd_mcp and args.transport == "http" and args.port is None
    env = mcp["environment"]
    fields = {f"GUMEM_{name.upper()}" for name in Settings.model_fields}
    assert set(env) <= fields, set(env) - fields
    for name in ("GUMEM_API_KEYS", "GUMEM_NEO4J_URI", "GUMEM_NEO4J_PASSWORD", "GUMEM_PORT"):
        assert env[name] == api["environment"][name], name
    assert [p.rsplit(":", 1)[1] for p in mcp["ports"]] == [env["GUMEM_PORT"]]
    assert mcp["depends_on"]["gumem"]["condition"] == "service_healthy"  # schema applied
    assert _defaults(env)["GUMEM_RUN_WORKER"] == "false"  # the API and workers process


def test_dependencies_and_model_are_layers_before_the_source() -> None:
    """An edit to the source reuses the dependency and model layers: those are built from
    pyproject.toml and uv.lock, then the model modules, before any package is copied whole."""
    lines = dockerfile()
    deps = line_of("--no-install-project")
    assert "uv sync --frozen --no-dev --no-install-project" in lines[deps]
    model = line_of("models prepare")
    first_source = min(
        i for i, ln in enumerate(lines) if ln.startswith("COPY ") and ln.split()[1] in SOURCE
    )
    assert deps < model < first_source
    before = [src for sources, _ in copies("--no-install-project") for src in sources]
    assert sorted(before) == ["pyproject.toml", "uv.lock"]
    # the project itself is installed once its source is in (the `gumem` command)
    assert any("uv sync --frozen --no-dev" in ln for ln in lines[first_source:])
    copied = {src.split("/")[0] for sources, _ in copies() for src in sources}
    packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert {p.rstrip("*") for p in packages["packages"]["find"]["include"]} <= copied


def test_uv_is_pinned() -> None:
    installs = [ln for ln in dockerfile() if re.search(r"\binstall\b.*\buv\b", ln)]
    assert installs and all(re.search(r"\buv==\d+\.\d+\.\d+\b", ln) for ln in installs), installs


def test_model_layer_needs_only_the_files_copied_before_it(tmp_path: Path) -> None:
    """`python -m tools models prepare` imports nothing beyond what is copied before it
    (the conversion itself runs in tests/integration/test_compose_health.py)."""
    app = lay_out(tmp_path / "app", until="models prepare")
    code = (
        "import sys, tools.__main__, tools.modelprep\n"
        f"ours = {(*SOURCE, 'tools')!r}\n"
        "bad = [n for n, m in sys.modules.items() if n.split('.')[0] in ours\n"
        "       and not (getattr(m, '__file__', None) or '').startswith(sys.argv[1])]\n"
        "print(bad)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(app)],
        cwd=app,
        capture_output=True,
        text=True,
        timeout=300,
        env={"PATH": os.environ["PATH"], "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "[]", "imported from outside the layer: " + done.stdout


def _ignored(path: str, patterns: list[str]) -> list[str]:
    """The .dockerignore patterns that take `path` or a folder above it out of the context
    (fnmatch's * also crosses "/": it finds more than Docker would, never less)."""
    parts = path.split("/")
    prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    forms = {p: [p.removeprefix("**/"), "*/" + p.removeprefix("**/")] for p in patterns}
    return [
        p for p in patterns for pre in prefixes if any(fnmatch.fnmatch(pre, f) for f in forms[p])
    ]


def test_dockerignore_keeps_local_state_out_and_what_is_copied_in() -> None:
    patterns = [
        ln.strip()
        for ln in (ROOT / ".dockerignore").read_text().splitlines()
        if ln.strip() and not ln.startswith("#")
    ]
    assert not [p for p in patterns if p.startswith("!")]  # no exceptions to reason about
    for path in (
        ".venv",
        ".gumem/models",
        ".git",
        "bench/results",
        "artifacts",
        "build",
        "dist",
        "tests/browser/node_modules",
        "core/__pycache__",
        ".env",
        "tools/neo4j-dev/target",
        ".mypy_cache",
    ):
        assert _ignored(path, patterns), f"{path} is sent to the Docker build"
    for sources, _ in copies():
        for pattern in sources:
            for src in ROOT.glob(pattern):
                rel = src.relative_to(ROOT).as_posix()
                assert not _ignored(rel, patterns), (
                    f"COPY {rel}: ignored by {_ignored(rel, patterns)}"
                )
