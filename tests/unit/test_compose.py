"""docker-compose.yml can't run here (no Docker engine); check its shape instead.

tests/integration/test_compose_health.py runs the Neo4j healthcheck's own command."""

from __future__ import annotations

import re
from typing import Any

import yaml

from core.settings import ROOT, Settings


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
