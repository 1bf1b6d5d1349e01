"""docker-compose.yml can't run here (no Docker engine); check its shape instead.

tests/integration/test_compose_health.py runs the Neo4j healthcheck's own command."""

from __future__ import annotations

import re
from typing import Any

import yaml

from core.settings import ROOT, Settings
from gumem.cli import cmd_worker
from gumem.cli import parser as cli_parser


def compose(name: str = "docker-compose.yml") -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / name).read_text())
    return data


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
    assert worker["command"] == ["python", "-m", "gumem.cli", "worker"]
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
