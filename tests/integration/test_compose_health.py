"""The compose Neo4j healthcheck, run as written against the test Neo4j.

cypher-shell comes from Maven Central (tools/cypher-shell), the same tool the Neo4j image
ships; a wrapper named `cypher-shell` points it at the test server."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from core.settings import ROOT, Settings
from tests.unit.test_compose import compose

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
