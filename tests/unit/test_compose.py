"""docker-compose.yml can't run here (no Docker engine); check its shape instead."""

from __future__ import annotations

from typing import Any

import yaml

from gumem.settings import ROOT, Settings


def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
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
