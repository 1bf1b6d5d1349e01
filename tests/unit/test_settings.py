"""Settings: the dev password stays on this machine; errors name the variable, not the value."""

from __future__ import annotations

import pytest
from pydantic import SecretStr, ValidationError

from core.errors import ConfigError
from core.settings import DEV_PASSWORD, Settings, load_settings


@pytest.fixture(autouse=True)
def no_password_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GUMEM_NEO4J_PASSWORD", raising=False)
    monkeypatch.delenv("GUMEM_NEO4J_URI", raising=False)


@pytest.mark.parametrize(
    "uri", ["bolt://db.example.com:7687", "neo4j+s://abc.databases.neo4j.io", "bolt://10.0.0.5"]
)
def test_remote_uri_needs_its_own_password(uri: str) -> None:
    with pytest.raises(ValidationError, match="GUMEM_NEO4J_PASSWORD must be set"):
        Settings(neo4j_uri=uri)
    with pytest.raises(ValidationError, match="not to the dev password"):
        Settings(neo4j_uri=uri, neo4j_password=SecretStr(DEV_PASSWORD))
    assert Settings(neo4j_uri=uri, neo4j_password=SecretStr("a-real-secret"))


@pytest.mark.parametrize(
    "uri", [None, "bolt://127.0.0.1:7687", "neo4j://localhost", "bolt://[::1]"]
)
def test_local_neo4j_may_use_the_dev_password(uri: str | None) -> None:
    assert Settings(neo4j_uri=uri).neo4j_password.get_secret_value() == DEV_PASSWORD


def test_bad_environment_is_a_config_error_without_the_value(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GUMEM_NEO4J_PASSWORD", "s3cr")
    with pytest.raises(ConfigError) as err:
        load_settings()
    assert "GUMEM_NEO4J_PASSWORD" in str(err.value)
    assert "s3cr" not in str(err.value)
