"""The files of one development Neo4j server, all in its home directory, and its process.

- ``neo4j-dev.pid``: pid of the running launcher (removed by :func:`tools.neo4j_dev.stop`);
- ``neo4j-dev.ready``: written by the launcher once it is up (``NEO4J_DEV_READY bolt=...``);
- ``logs/neo4j-dev.log``: the launcher's stdout/stderr; Neo4j's own ``debug.log`` is beside it;
- ``neo4j-dev.cds.json``: where the running launcher dumps its class data at exit (CDS);
- ``data/``: the databases.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import logging
import os
import re
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

log = logging.getLogger(__name__)

MAIN_CLASS = "dev.gumem.Neo4jDev"

PID_FILE = "neo4j-dev.pid"
READY_FILE = "neo4j-dev.ready"
LOCK_FILE = "neo4j-dev.lock"
CDS_FILE = "neo4j-dev.cds.json"
LOG_FILE = Path("logs") / "neo4j-dev.log"
LOG_ROTATE_BYTES = 10 * 1024 * 1024
LOG_HEADER = "=== neo4j-dev start "

# CDS diagnostics (e.g. "Skipping ...: Signed JAR") would only clutter the log.
CDS_QUIET: tuple[str, ...] = ("-Xlog:cds=off", "-Xlog:cds+dynamic=off")
# Launchers started by this process, kept so that their Popen objects are not collected (and
# warn) while the server runs on; stop() reaps them.
CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


@atexit.register
def _detach_children() -> None:
    """A server still running at exit was left on purpose (it outlives this process)."""
    for proc in CHILDREN.values():
        if proc.poll() is None:
            proc.returncode = 0  # tells Popen.__del__ not to warn about a live child


@dataclass(frozen=True)
class DevServer:
    """A running development Neo4j."""

    pid: int
    bolt_uri: str
    http_url: str
    home: Path
    log: Path
    version: str


def log_path(home: Path) -> Path:
    return home / LOG_FILE


def read_pid(home: Path) -> int | None:
    """The pid in the home's pid file, or None if there is none (or it is not a pid)."""
    try:
        text = (home / PID_FILE).read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() and int(text) > 0 else None


def write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def unlink(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def reap(pid: int) -> None:
    """Collect ``pid`` if it is an exited launcher started by this process (no zombie left).

    Other children are left to whoever started them (a zombie counts as gone anyway).
    """
    child = CHILDREN.get(pid)
    if child is not None and child.poll() is not None:
        del CHILDREN[pid]


def is_launcher_alive(pid: int, home: Path) -> bool:
    """True if ``pid`` is a live Neo4jDev launcher for ``home`` (guards against pid reuse)."""
    proc = Path("/proc") / str(pid)
    if not Path("/proc/self").exists():  # no procfs: best effort
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    try:
        stat = (proc / "stat").read_text()
        argv = (proc / "cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    state = stat.rsplit(")", 1)[-1].split()[0] if ")" in stat else "?"
    if state in ("Z", "X"):
        reap(pid)
        return False
    args = [a.decode("utf-8", "replace") for a in argv]
    if MAIN_CLASS not in args:
        return False
    try:
        i = args.index("--home")
    except ValueError:
        return False
    return i + 1 < len(args) and Path(args[i + 1]) == home


def parse_ready_line(line: str) -> dict[str, str]:
    """``NEO4J_DEV_READY bolt=h:p http=h:p version=v pid=n`` -> its key=value pairs."""
    parts = line.strip().split()
    if not parts or parts[0] != "NEO4J_DEV_READY":
        return {}
    fields: dict[str, str] = {}
    for part in parts[1:]:
        key, sep, value = part.partition("=")
        if sep:
            fields[key] = value
    return fields


def read_ready(home: Path, pid: int) -> dict[str, str] | None:
    try:
        fields = parse_ready_line((home / READY_FILE).read_text())
    except OSError:
        return None
    if fields.get("pid") != str(pid) or "bolt" not in fields or "http" not in fields:
        return None
    return fields


def dev_server(home: Path, pid: int, fields: Mapping[str, str]) -> DevServer:
    return DevServer(
        pid=pid,
        bolt_uri=f"bolt://{fields['bolt']}",
        http_url=f"http://{fields['http']}",
        home=home,
        log=log_path(home),
        version=fields.get("version", "unknown"),
    )


def clear_stale(home: Path) -> None:
    """The launcher of ``home`` is gone: remove its pid/ready files and any CDS dump it left."""
    for name in (PID_FILE, READY_FILE):
        unlink(home / name)
    finish_cds(home, promote=False)


def log_tail(path: Path, lines: int = 15) -> str:
    """The last lines of the latest launch in the log, without stack frames."""
    try:
        with path.open("rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 65536))
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        return ""
    text = text.rsplit(LOG_HEADER, 1)[-1]
    kept = [
        ln
        for ln in text.splitlines()[1:]
        if not ln.startswith("\tat ") and not re.match(r"^\s*\.\.\. \d+ more$", ln)
    ]
    return "\n".join(kept[-lines:])


def open_log(path: Path) -> IO[bytes]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        if path.stat().st_size > LOG_ROTATE_BYTES:
            os.replace(path, path.with_name(path.name + ".1"))
    return path.open("ab")


# --------------------------------------------------------------------------------------------
# CDS (class data sharing): cuts JVM start time by archiving the loaded classes once


def _cds_archive(tools_dir: Path, java: str) -> Path:
    real = os.path.realpath(java)
    st = os.stat(real)
    key = hashlib.sha1(f"{real}|{st.st_size}|{st.st_mtime_ns}".encode()).hexdigest()[:12]
    return tools_dir / "target" / f"neo4j-dev-{key}.jsa"


def cds_opts(home: Path, tools_dir: Path, java: str, jar: Path) -> list[str]:
    archive = _cds_archive(tools_dir, java)
    try:
        if archive.stat().st_mtime_ns > jar.stat().st_mtime_ns:
            return [f"-XX:SharedArchiveFile={archive}", *CDS_QUIET]
    except OSError:
        pass
    # No usable archive yet: this run dumps one when it exits; stop() promotes it.
    tmp = archive.with_name(f"{archive.name}.{os.getpid()}-{time.time_ns()}.tmp")
    write_atomic(home / CDS_FILE, json.dumps({"tmp": str(tmp), "final": str(archive)}))
    return [f"-XX:ArchiveClassesAtExit={tmp}", *CDS_QUIET]


def finish_cds(home: Path, promote: bool) -> None:
    """After the launcher exited: keep its CDS dump if it exited cleanly, else drop it."""
    record = home / CDS_FILE
    try:
        info = json.loads(record.read_text())
        tmp, final = Path(info["tmp"]), Path(info["final"])
    except (OSError, ValueError, KeyError, TypeError):
        unlink(record)
        return
    try:
        if promote and tmp.is_file() and tmp.stat().st_size > 0:
            os.replace(tmp, final)
            log.info("saved a class-data-sharing archive for faster starts: %s", final)
        else:
            unlink(tmp)
    except OSError as exc:
        log.warning("could not keep the CDS archive %s: %s", tmp, exc)
    unlink(record)
