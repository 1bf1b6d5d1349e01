"""tools.neo4j_dev, neo4j_conf, neo4j_home, neo4j_build without a Neo4j: checks, files, builds."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tools import neo4j_build as nb
from tools import neo4j_conf as nc
from tools import neo4j_dev as nd
from tools import neo4j_home as nh


@pytest.fixture
def fake_launcher(tmp_path: Path) -> Iterator[tuple[Path, subprocess.Popen[bytes]]]:
    """A sleeping Python process whose command line looks like the launcher's for a home."""
    home = (tmp_path / "home").resolve()
    home.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)", nh.MAIN_CLASS, "--home", str(home)],
        start_new_session=True,
    )
    try:
        yield home, proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def test_password_must_have_eight_characters() -> None:
    with pytest.raises(nb.Neo4jDevError, match="at least 8"):
        nc.validate_password("short")
    with pytest.raises(nb.Neo4jDevError):
        nc.validate_password("")
    nc.validate_password("12345678")
    nc.validate_password("密码密码密码密码")  # eight characters, not bytes


def test_password_never_in_error(tmp_path: Path) -> None:
    with pytest.raises(nb.Neo4jDevError) as err:
        nd.start(tmp_path / "h", 17687, 17474, "secret7")
    assert "secret7" not in str(err.value)


def test_start_validates_before_touching_anything(tmp_path: Path) -> None:
    home = tmp_path / "h"
    with pytest.raises(nb.Neo4jDevError, match="at least 8"):
        nd.start(home, 17687, 17474, "short")
    with pytest.raises(nb.Neo4jDevError, match="bolt_port"):
        nd.start(home, 0, 17474, "longenough")
    with pytest.raises(nb.Neo4jDevError, match="http_port"):
        nd.start(home, 17687, 70000, "longenough")
    with pytest.raises(nb.Neo4jDevError, match="differ"):
        nd.start(home, 17687, 17687, "longenough")
    with pytest.raises(nb.Neo4jDevError, match="setting name"):
        nd.start(home, 17687, 17474, "longenough", extra_conf={"bad key": "1"})
    with pytest.raises(nb.Neo4jDevError, match="line break"):
        nd.start(home, 17687, 17474, "longenough", extra_conf={"a.b": "x\ny"})
    with pytest.raises(nb.Neo4jDevError, match="heap"):
        nd.start(home, 17687, 17474, "longenough", heap="lots")
    assert not home.exists()


def test_status_and_stop_on_empty_or_missing_home(tmp_path: Path) -> None:
    assert nd.status(tmp_path) is None
    assert nd.status(tmp_path / "missing") is None
    assert nd.stop(tmp_path) is False
    assert nd.stop(tmp_path / "missing") is False


def test_read_pid(tmp_path: Path) -> None:
    assert nh.read_pid(tmp_path) is None
    (tmp_path / nh.PID_FILE).write_text("garbage\n")
    assert nh.read_pid(tmp_path) is None
    (tmp_path / nh.PID_FILE).write_text("0\n")
    assert nh.read_pid(tmp_path) is None
    (tmp_path / nh.PID_FILE).write_text("1234\n")
    assert nh.read_pid(tmp_path) == 1234


def test_stale_pid_file_is_removed(tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    (tmp_path / nh.PID_FILE).write_text(f"{dead.pid}\n")
    (tmp_path / nh.READY_FILE).write_text(f"NEO4J_DEV_READY bolt=h:1 http=h:2 pid={dead.pid}\n")
    assert nd.status(tmp_path) is None
    assert not (tmp_path / nh.PID_FILE).exists()
    assert not (tmp_path / nh.READY_FILE).exists()


def test_live_pid_of_another_program_is_not_the_server(tmp_path: Path) -> None:
    (tmp_path / nh.PID_FILE).write_text(f"{os.getpid()}\n")  # pid reuse: alive, not a launcher
    assert not nh.is_launcher_alive(os.getpid(), tmp_path.resolve())
    assert nd.status(tmp_path) is None
    assert not (tmp_path / nh.PID_FILE).exists()
    assert nd.stop(tmp_path) is False  # and it is not signalled


def test_parse_ready_line() -> None:
    line = "NEO4J_DEV_READY bolt=127.0.0.1:17687 http=127.0.0.1:17474 version=5.26.30 pid=42\n"
    assert nh.parse_ready_line(line) == {
        "bolt": "127.0.0.1:17687",
        "http": "127.0.0.1:17474",
        "version": "5.26.30",
        "pid": "42",
    }
    assert nh.parse_ready_line("something else") == {}
    assert nh.parse_ready_line("") == {}


def test_status_and_stop_of_a_running_launcher(
    fake_launcher: tuple[Path, subprocess.Popen[bytes]],
) -> None:
    home, proc = fake_launcher
    (home / nh.PID_FILE).write_text(f"{proc.pid}\n")
    assert nh.is_launcher_alive(proc.pid, home)
    assert not nh.is_launcher_alive(proc.pid, home / "other")
    assert nd.status(home) is None  # alive but not ready yet
    assert (home / nh.PID_FILE).exists()

    ready = "NEO4J_DEV_READY bolt=127.0.0.1:17687 http=127.0.0.1:17474 version=5.26.30"
    (home / nh.READY_FILE).write_text(f"{ready} pid={proc.pid + 1}\n")
    assert nd.status(home) is None  # a marker of another launcher does not count
    (home / nh.READY_FILE).write_text(f"{ready} pid={proc.pid}\n")
    server = nd.status(home)
    assert server == nh.DevServer(
        pid=proc.pid,
        bolt_uri="bolt://127.0.0.1:17687",
        http_url="http://127.0.0.1:17474",
        home=home,
        log=home / "logs" / "neo4j-dev.log",
        version="5.26.30",
    )

    t0 = time.monotonic()
    assert nd.stop(home, timeout_s=10) is True
    assert time.monotonic() - t0 < 10
    assert proc.wait(timeout=5) == -15  # SIGTERM
    assert not (home / nh.PID_FILE).exists()
    assert not (home / nh.READY_FILE).exists()
    assert nd.status(home) is None
    assert nd.stop(home) is False


def test_stop_kills_after_timeout(tmp_path: Path) -> None:
    home = (tmp_path / "home").resolve()
    home.mkdir()
    ignore_term = (
        "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", ignore_term, nh.MAIN_CLASS, "--home", str(home)],
        start_new_session=True,
    )
    try:
        time.sleep(0.3)  # let it install the handler
        (home / nh.PID_FILE).write_text(f"{proc.pid}\n")
        assert nd.stop(home, timeout_s=0.5) is True
        assert proc.wait(timeout=5) == -9  # SIGKILL
        assert not (home / nh.PID_FILE).exists()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def test_cds_dump_is_kept_only_after_a_clean_stop(tmp_path: Path) -> None:
    final, tmp = tmp_path / "a.jsa", tmp_path / "a.jsa.1.tmp"
    record = f'{{"tmp": "{tmp}", "final": "{final}"}}'
    tmp.write_bytes(b"x")
    (tmp_path / nh.CDS_FILE).write_text(record)
    nh.finish_cds(tmp_path, promote=False)
    assert not tmp.exists() and not final.exists() and not (tmp_path / nh.CDS_FILE).exists()
    tmp.write_bytes(b"x")
    (tmp_path / nh.CDS_FILE).write_text(record)
    nh.finish_cds(tmp_path, promote=True)
    assert final.read_bytes() == b"x" and not tmp.exists()
    nh.finish_cds(tmp_path, promote=True)  # no record: nothing to do


def _fake_tools(tmp_path: Path, libs: list[str]) -> Path:
    tools = tmp_path / "tools"
    (tools / "src").mkdir(parents=True)
    (tools / "pom.xml").write_text("<project/>")
    (tools / "src" / "Main.java").write_text("class Main {}")
    target = tools / "target"
    (target / "lib").mkdir(parents=True)
    # Class-Path wrapped the way the jar tool does (72-byte lines, continuation with a space).
    cp = " ".join(f"lib/{name}" for name in libs)
    header = f"Class-Path: {cp}"
    wrapped = "\r\n ".join(header[i : i + 70] for i in range(0, len(header), 70))
    manifest = f"Manifest-Version: 1.0\r\n{wrapped}\r\nMain-Class: dev.gumem.Neo4jDev\r\n\r\n"
    time.sleep(0.01)
    with zipfile.ZipFile(target / nb.JAR_NAME, "w") as zf:
        zf.writestr("META-INF/MANIFEST.MF", manifest)
    return tools


def test_build_cache_check(tmp_path: Path) -> None:
    libs = [f"some-long-library-name-{i}-1.2.3.jar" for i in range(8)]
    tools = _fake_tools(tmp_path, libs)
    assert nb._manifest_classpath(nb.jar_path(tools)) == [f"lib/{name}" for name in libs]
    assert not nb.is_built(tools)  # libs missing
    for name in libs:
        (tools / "target" / "lib" / name).write_bytes(b"")
    assert nb.is_built(tools)
    assert nb.build(tools) == nb.jar_path(tools)  # up to date: Maven is not run
    future = time.time() + 5
    os.utime(tools / "src" / "Main.java", (future, future))
    assert not nb.is_built(tools)


def test_build_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(nb.Neo4jDevError, match=r"no pom\.xml"):
        nb.build(tmp_path)
    tools = _fake_tools(tmp_path, ["a.jar"])  # lib missing: needs a build
    monkeypatch.setattr(nb, "find_java", lambda: "java")
    real_which = shutil.which
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "mvn" else real_which(name))
    with pytest.raises(nb.Neo4jDevError, match="Maven"):
        nb.build(tools)
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    mvn = fake_bin / "mvn"
    mvn.write_text("#!/bin/sh\necho broken build\nexit 1\n")
    mvn.chmod(0o755)
    monkeypatch.setattr(
        shutil, "which", lambda name: str(mvn) if name == "mvn" else real_which(name)
    )
    build_log = tmp_path / "build.log"
    with pytest.raises(nb.Neo4jDevError, match=r"build\.log") as err:
        nb.build(tools, build_log)
    assert "exit 1" in str(err.value)
    assert "broken build" in build_log.read_text()
