"""A real Neo4j 5 (Community) for development and tests, without Docker or a Neo4j install.

The launcher in ``tools/neo4j-dev`` (``dev.gumem.Neo4jDev``) runs an embedded Neo4j DBMS with
the Bolt and HTTP connectors and Neo4j Browser (``/browser/``), all from Maven Central
artifacts. This module builds it with Maven (once, cached), starts it detached in its own
process group, waits until an authenticated ``RETURN 1`` works, and stops it.

Everything about one server lives in its home directory:

- ``neo4j-dev.pid``: pid of the running launcher (removed by :func:`stop`);
- ``neo4j-dev.ready``: written by the launcher once it is up (``NEO4J_DEV_READY bolt=...``);
- ``logs/neo4j-dev.log``: the launcher's stdout/stderr; Neo4j's own ``debug.log`` is beside it;
- ``data/``: the databases.

The password of user ``neo4j`` is handed to the launcher in the environment (never on the
command line) and is set on every start, so it is the one given to :func:`start`.

Manual use: ``NEO4J_DEV_PASSWORD=... python -m tools.neo4j_dev start --home DIR``
(also ``status``, ``stop``, ``build``).
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import fcntl
import hashlib
import json
import logging
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

log = logging.getLogger(__name__)

MAIN_CLASS = "dev.gumem.Neo4jDev"
PASSWORD_ENV = "NEO4J_DEV_PASSWORD"
MIN_PASSWORD_LENGTH = 8
USER = "neo4j"

PID_FILE = "neo4j-dev.pid"
READY_FILE = "neo4j-dev.ready"
LOCK_FILE = "neo4j-dev.lock"
CDS_FILE = "neo4j-dev.cds.json"
LOG_FILE = Path("logs") / "neo4j-dev.log"
LOG_ROTATE_BYTES = 10 * 1024 * 1024
LOG_HEADER = "=== neo4j-dev start "

DEFAULT_TOOLS_DIR = Path(__file__).resolve().parent / "neo4j-dev"
JAR_NAME = "neo4j-dev.jar"
DEFAULT_HEAP = "1g"

# As in Neo4j's own neo4j.conf (server.jvm.additional) for Java 17, plus java.lang.
JVM_OPTS: tuple[str, ...] = (
    "-XX:+UseG1GC",
    "-XX:-OmitStackTraceInFastThrow",
    "-XX:+UnlockExperimentalVMOptions",
    "-XX:+TrustFinalNonStaticFields",
    "-XX:+DisableExplicitGC",
    "-XX:+ExitOnOutOfMemoryError",
    "-Djdk.nio.maxCachedBufferSize=1024",
    "-Dio.netty.tryReflectionSetAccessible=true",
    "-Djdk.tls.ephemeralDHKeySize=2048",
    "-Djdk.tls.rejectClientInitiatedRenegotiation=true",
    "-Dlog4j2.disable.jmx=true",
    "-Dfile.encoding=UTF-8",
    "--add-opens=java.base/java.nio=ALL-UNNAMED",
    "--add-opens=java.base/java.io=ALL-UNNAMED",
    "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
    "--add-opens=java.base/java.lang=ALL-UNNAMED",
    "--enable-native-access=ALL-UNNAMED",
)
# CDS diagnostics (e.g. "Skipping ...: Signed JAR") would only clutter the log.
CDS_QUIET: tuple[str, ...] = ("-Xlog:cds=off", "-Xlog:cds+dynamic=off")

_CONF_KEY = re.compile(r"^[A-Za-z0-9_.\-]+$")
_HEAP = re.compile(r"^[1-9][0-9]*[kKmMgG]?$")
_POLL_S = 0.25
_KILL_WAIT_S = 10.0
# Launchers started by this process, kept so that their Popen objects are not collected (and
# warn) while the server runs on; stop() reaps them.
_CHILDREN: dict[int, subprocess.Popen[bytes]] = {}


@atexit.register
def _detach_children() -> None:
    """A server still running at exit was left on purpose (it outlives this process)."""
    for proc in _CHILDREN.values():
        if proc.poll() is None:
            proc.returncode = 0  # tells Popen.__del__ not to warn about a live child


class Neo4jDevError(Exception):
    """The development Neo4j could not be built, started, or stopped. Never carries secrets."""


@dataclass(frozen=True)
class DevServer:
    """A running development Neo4j."""

    pid: int
    bolt_uri: str
    http_url: str
    home: Path
    log: Path
    version: str


# --------------------------------------------------------------------------------------------
# build


def _java() -> str:
    java_home = os.environ.get("JAVA_HOME")
    if java_home:
        candidate = Path(java_home) / "bin" / "java"
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return str(candidate)
    found = shutil.which("java")
    if found is None:
        raise Neo4jDevError("Java not found (need Java 17+ on PATH or in JAVA_HOME)")
    return found


def jar_path(tools_dir: Path) -> Path:
    return tools_dir / "target" / JAR_NAME


def _manifest_classpath(jar: Path) -> list[str]:
    """The Class-Path entries of the launcher jar's manifest (relative to the jar)."""
    with zipfile.ZipFile(jar) as zf:
        text = zf.read("META-INF/MANIFEST.MF").decode("utf-8")
    # Manifest lines are wrapped at 72 bytes; continuation lines start with one space.
    unwrapped = re.sub(r"\r?\n ", "", text)
    for line in unwrapped.splitlines():
        if line.startswith("Class-Path:"):
            return line.split(":", 1)[1].split()
    return []


def _sources(tools_dir: Path) -> list[Path]:
    files = [tools_dir / "pom.xml"]
    src = tools_dir / "src"
    if src.is_dir():
        files.extend(p for p in src.rglob("*") if p.is_file())
    return files


def is_built(tools_dir: Path) -> bool:
    """True if the jar is newer than pom.xml and every source, and all its libs are there."""
    jar = jar_path(tools_dir)
    try:
        jar_mtime = jar.stat().st_mtime_ns
        if any(p.stat().st_mtime_ns > jar_mtime for p in _sources(tools_dir)):
            return False
        entries = _manifest_classpath(jar)
    except (OSError, KeyError, zipfile.BadZipFile):
        return False
    return bool(entries) and all((jar.parent / e).is_file() for e in entries)


@contextlib.contextmanager
def _flock(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def build(tools_dir: Path = DEFAULT_TOOLS_DIR, log: Path | None = None) -> Path:
    """Build the launcher (``mvn -q -B package``) unless it is up to date; return its jar.

    The jar's manifest puts ``target/lib/*.jar`` (every dependency) on the class path, so
    ``java -cp <jar> dev.gumem.Neo4jDev`` is enough. The Maven output goes to ``log``
    (default ``target/build.log``).
    """
    logger = logging.getLogger(__name__)  # the parameter ``log`` shadows the module logger
    tools_dir = tools_dir.resolve()
    if not (tools_dir / "pom.xml").is_file():
        raise Neo4jDevError(f"no pom.xml in {tools_dir}")
    build_log = (log or tools_dir / "target" / "build.log").resolve()
    jar = jar_path(tools_dir)
    if is_built(tools_dir):
        return jar
    with _flock(tools_dir / "target" / ".build.lock"):
        if is_built(tools_dir):  # built meanwhile by another process
            return jar
        _java()
        mvn = shutil.which("mvn")
        if mvn is None:
            raise Neo4jDevError("Maven (mvn) not found on PATH; it is needed to build the launcher")
        build_log.parent.mkdir(parents=True, exist_ok=True)
        cmd = [mvn, "-q", "-B", "-Dstyle.color=never", "package"]
        logger.info("building the Neo4j dev launcher in %s (log: %s)", tools_dir, build_log)
        t0 = time.monotonic()
        with build_log.open("w") as out:
            try:
                rc = subprocess.call(
                    cmd, cwd=tools_dir, stdin=subprocess.DEVNULL, stdout=out, stderr=out
                )
            except OSError as exc:
                raise Neo4jDevError(f"cannot run Maven: {exc}; see {build_log}") from exc
        if rc != 0:
            raise Neo4jDevError(
                f"building the Neo4j dev launcher failed (mvn exit {rc}); see {build_log}"
            )
        if not jar.is_file():
            raise Neo4jDevError(f"Maven finished but {jar} is missing; see {build_log}")
        os.utime(jar)  # the jar plugin leaves an unchanged jar alone: mark it as fresh
        if not is_built(tools_dir):
            raise Neo4jDevError(
                f"launcher built but its dependencies are incomplete in "
                f"{jar.parent / 'lib'}; see {build_log}"
            )
        logger.info("built the Neo4j dev launcher in %.1f s", time.monotonic() - t0)
    return jar


# --------------------------------------------------------------------------------------------
# home files


def validate_password(password: str) -> None:
    if len(password) < MIN_PASSWORD_LENGTH:
        raise Neo4jDevError(
            f"the Neo4j password must have at least {MIN_PASSWORD_LENGTH} characters"
        )


def _validate_port(name: str, port: int) -> None:
    if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
        raise Neo4jDevError(f"{name} must be a port number 1-65535, got {port!r}")


def _validate_conf(extra_conf: Mapping[str, str]) -> None:
    for key, value in extra_conf.items():
        if not _CONF_KEY.match(key):
            raise Neo4jDevError(f"bad Neo4j setting name: {key!r}")
        if "\n" in value or "\r" in value:
            raise Neo4jDevError(f"the value of Neo4j setting {key} has a line break")


def log_path(home: Path) -> Path:
    return home / LOG_FILE


def read_pid(home: Path) -> int | None:
    """The pid in the home's pid file, or None if there is none (or it is not a pid)."""
    try:
        text = (home / PID_FILE).read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() and int(text) > 0 else None


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def _unlink(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()


def _reap(pid: int) -> None:
    """Collect ``pid`` if it is an exited launcher started by this process (no zombie left).

    Other children are left to whoever started them (a zombie counts as gone anyway).
    """
    child = _CHILDREN.get(pid)
    if child is not None and child.poll() is not None:
        del _CHILDREN[pid]


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
        _reap(pid)
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


def _read_ready(home: Path, pid: int) -> dict[str, str] | None:
    try:
        fields = parse_ready_line((home / READY_FILE).read_text())
    except OSError:
        return None
    if fields.get("pid") != str(pid) or "bolt" not in fields or "http" not in fields:
        return None
    return fields


def _server(home: Path, pid: int, fields: Mapping[str, str]) -> DevServer:
    return DevServer(
        pid=pid,
        bolt_uri=f"bolt://{fields['bolt']}",
        http_url=f"http://{fields['http']}",
        home=home,
        log=log_path(home),
        version=fields.get("version", "unknown"),
    )


def _clear_stale(home: Path) -> None:
    """The launcher of ``home`` is gone: remove its pid/ready files and any CDS dump it left."""
    for name in (PID_FILE, READY_FILE):
        _unlink(home / name)
    _finish_cds(home, promote=False)


def status(home: Path) -> DevServer | None:
    """The server running (and ready) for ``home``, or None.

    A launcher that is still starting is not reported (None); stale pid files are cleaned up.
    """
    home = home.resolve()
    pid = read_pid(home)
    if pid is None:
        return None
    if not is_launcher_alive(pid, home):
        log.info("removing stale pid file of %s (pid %d is gone)", home, pid)
        _clear_stale(home)
        return None
    fields = _read_ready(home, pid)
    return _server(home, pid, fields) if fields else None


# --------------------------------------------------------------------------------------------
# CDS (class data sharing): cuts JVM start time by archiving the loaded classes once


def _cds_archive(tools_dir: Path, java: str) -> Path:
    real = os.path.realpath(java)
    st = os.stat(real)
    key = hashlib.sha1(f"{real}|{st.st_size}|{st.st_mtime_ns}".encode()).hexdigest()[:12]
    return tools_dir / "target" / f"neo4j-dev-{key}.jsa"


def _cds_opts(home: Path, tools_dir: Path, java: str, jar: Path) -> list[str]:
    archive = _cds_archive(tools_dir, java)
    try:
        if archive.stat().st_mtime_ns > jar.stat().st_mtime_ns:
            return [f"-XX:SharedArchiveFile={archive}", *CDS_QUIET]
    except OSError:
        pass
    # No usable archive yet: this run dumps one when it exits; stop() promotes it.
    tmp = archive.with_name(f"{archive.name}.{os.getpid()}-{time.time_ns()}.tmp")
    _write_atomic(home / CDS_FILE, json.dumps({"tmp": str(tmp), "final": str(archive)}))
    return [f"-XX:ArchiveClassesAtExit={tmp}", *CDS_QUIET]


def _finish_cds(home: Path, promote: bool) -> None:
    """After the launcher exited: keep its CDS dump if it exited cleanly, else drop it."""
    record = home / CDS_FILE
    try:
        info = json.loads(record.read_text())
        tmp, final = Path(info["tmp"]), Path(info["final"])
    except (OSError, ValueError, KeyError, TypeError):
        _unlink(record)
        return
    try:
        if promote and tmp.is_file() and tmp.stat().st_size > 0:
            os.replace(tmp, final)
            log.info("saved a class-data-sharing archive for faster starts: %s", final)
        else:
            _unlink(tmp)
    except OSError as exc:
        log.warning("could not keep the CDS archive %s: %s", tmp, exc)
    _unlink(record)


# --------------------------------------------------------------------------------------------
# start / stop


def _port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # Like Neo4j (netty) itself: sockets in TIME_WAIT do not count as in use.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


def _tail(path: Path, lines: int = 15) -> str:
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


def _open_log(path: Path) -> IO[bytes]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        if path.stat().st_size > LOG_ROTATE_BYTES:
            os.replace(path, path.with_name(path.name + ".1"))
    return path.open("ab")


def _check_bolt(uri: str, password: str) -> None:
    """Raise unless an authenticated ``RETURN 1`` works over Bolt."""
    from neo4j import GraphDatabase

    with GraphDatabase.driver(uri, auth=(USER, password), connection_timeout=5.0) as driver:
        records, _, _ = driver.execute_query("RETURN 1 AS ok")
        if not records or records[0]["ok"] != 1:
            raise Neo4jDevError(f"unexpected answer to RETURN 1 from {uri}")


def _wait_ready(
    home: Path,
    pid: int,
    password: str,
    deadline: float,
    proc: subprocess.Popen[bytes] | None,
) -> DevServer:
    from neo4j.exceptions import AuthError, Neo4jError, ServiceUnavailable

    logfile = log_path(home)
    last_error = "no ready marker yet"
    while True:
        exited = proc.poll() if proc is not None else None
        # a child we spawned is judged by poll(): right after fork its cmdline is still
        # Python's, so the /proc check alone would call it dead
        gone = exited is not None if proc is not None else not is_launcher_alive(pid, home)
        if gone:
            code = f" with exit code {exited}" if exited is not None else ""
            raise Neo4jDevError(
                f"the Neo4j dev server for {home} exited{code} while starting; "
                f"see {logfile}\n{_tail(logfile)}"
            )
        fields = _read_ready(home, pid)
        if fields is not None:
            server = _server(home, pid, fields)
            try:
                _check_bolt(server.bolt_uri, password)
                return server
            except AuthError as exc:
                raise Neo4jDevError(
                    f"the Neo4j dev server for {home} (pid {pid}) rejected the password for "
                    f"user {USER}; was it started with another one? See {logfile}"
                ) from exc
            except (ServiceUnavailable, Neo4jError, OSError) as exc:
                last_error = f"{type(exc).__name__}: {exc}"
        if time.monotonic() >= deadline:
            raise TimeoutError(last_error)
        time.sleep(_POLL_S)


def start(
    home: Path,
    bolt_port: int,
    http_port: int,
    password: str,
    timeout_s: float = 120,
    extra_conf: dict[str, str] | None = None,
    *,
    tools_dir: Path = DEFAULT_TOOLS_DIR,
    heap: str = DEFAULT_HEAP,
    java_opts: Sequence[str] = (),
    cds: bool = True,
) -> DevServer:
    """Start the development Neo4j for ``home`` (or return the one already running there).

    The server listens on 127.0.0.1 only; it is detached (own session and process group) and
    outlives this process until :func:`stop`. ``extra_conf`` holds raw Neo4j settings
    (``--conf key=value``), e.g. ``{"server.memory.pagecache.size": "512m"}``. Waits at most
    ``timeout_s`` for an authenticated ``RETURN 1`` over Bolt; on failure the half-started
    server is stopped and the error names the log file.
    """
    validate_password(password)
    _validate_port("bolt_port", bolt_port)
    _validate_port("http_port", http_port)
    if bolt_port == http_port:
        raise Neo4jDevError("bolt_port and http_port must differ")
    conf = dict(extra_conf or {})
    _validate_conf(conf)
    if not _HEAP.match(heap):
        raise Neo4jDevError(f"bad heap size {heap!r} (e.g. 512m, 1g)")
    home = home.resolve()
    home.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + timeout_s
    logfile = log_path(home)

    with _flock(home / LOCK_FILE):
        pid = read_pid(home)
        if pid is not None and is_launcher_alive(pid, home):
            log.info("Neo4j dev server for %s already running (pid %d)", home, pid)
            try:
                server = _wait_ready(home, pid, password, deadline, None)
            except TimeoutError as exc:
                raise Neo4jDevError(
                    f"the Neo4j dev server for {home} (pid {pid}) is running but not ready "
                    f"after {timeout_s:.0f} s ({exc}); see {logfile}"
                ) from None
            wanted = (f"bolt://127.0.0.1:{bolt_port}", f"http://127.0.0.1:{http_port}")
            if (server.bolt_uri, server.http_url) != wanted:
                log.warning(
                    "Neo4j dev server for %s runs on %s / %s, not the ports asked for",
                    home,
                    server.bolt_uri,
                    server.http_url,
                )
            return server
        if pid is not None:
            log.info("removing stale pid file of %s (pid %d is gone)", home, pid)
        _clear_stale(home)

        for name, port in (("Bolt", bolt_port), ("HTTP", http_port)):
            if _port_in_use(port):
                raise Neo4jDevError(f"{name} port {port} on 127.0.0.1 is already in use")

        jar = build(tools_dir)
        java = _java()
        cmd = [java, f"-Xmx{heap}", *JVM_OPTS]
        if cds:
            cmd += _cds_opts(home, tools_dir.resolve(), java, jar)
        cmd += [
            *java_opts,
            "-cp",
            str(jar),
            MAIN_CLASS,
            "--home",
            str(home),
            "--bolt-port",
            str(bolt_port),
            "--http-port",
            str(http_port),
        ]
        for key, value in conf.items():
            cmd += ["--conf", f"{key}={value}"]
        env = dict(os.environ)
        env[PASSWORD_ENV] = password

        t0 = time.monotonic()
        with _open_log(logfile) as out:
            stamp = time.strftime("%Y-%m-%d %H:%M:%S%z")
            out.write(f"{LOG_HEADER}{stamp}: {' '.join(cmd)}\n".encode())
            out.flush()
            try:
                proc = subprocess.Popen(
                    cmd,
                    cwd=home,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                    close_fds=True,
                )
            except OSError as exc:
                raise Neo4jDevError(f"cannot run {java}: {exc}") from exc
        _CHILDREN[proc.pid] = proc
        _write_atomic(home / PID_FILE, f"{proc.pid}\n")
        log.info("starting Neo4j dev server for %s (pid %d, log %s)", home, proc.pid, logfile)
        try:
            server = _wait_ready(home, proc.pid, password, deadline, proc)
        except TimeoutError as exc:
            _stop_locked(home, 30, promote_cds=False)
            raise Neo4jDevError(
                f"the Neo4j dev server for {home} was not ready after {timeout_s:.0f} s "
                f"({exc}); it was stopped; see {logfile}\n{_tail(logfile)}"
            ) from None
        except BaseException:
            _stop_locked(home, 30, promote_cds=False)
            raise
        log.info(
            "Neo4j %s dev server ready at %s and %s in %.1f s",
            server.version,
            server.bolt_uri,
            server.http_url,
            time.monotonic() - t0,
        )
        return server


def _wait_gone(pid: int, home: Path, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while is_launcher_alive(pid, home):
        if time.monotonic() >= deadline:
            return False
        time.sleep(_POLL_S / 2)
    return True


def _stop_locked(home: Path, timeout_s: float, promote_cds: bool = True) -> bool:
    pid = read_pid(home)
    if pid is None or not is_launcher_alive(pid, home):
        _clear_stale(home)
        return False
    log.info("stopping Neo4j dev server for %s (pid %d)", home, pid)
    clean = True
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    if not _wait_gone(pid, home, timeout_s):
        log.warning(
            "Neo4j dev server pid %d did not stop within %.1f s; killing it", pid, timeout_s
        )
        clean = False
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGKILL)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        if not _wait_gone(pid, home, _KILL_WAIT_S):
            raise Neo4jDevError(f"could not kill the Neo4j dev server (pid {pid}) of {home}")
    _reap(pid)
    for name in (PID_FILE, READY_FILE):
        _unlink(home / name)
    _finish_cds(home, promote=promote_cds and clean)
    return True


def stop(home: Path, timeout_s: float = 60) -> bool:
    """Stop the server of ``home``: SIGTERM, then SIGKILL after ``timeout_s``.

    Returns True if a server was running (and is now stopped), False if none was.
    """
    home = home.resolve()
    if not home.is_dir():
        return False
    with _flock(home / LOCK_FILE):
        return _stop_locked(home, timeout_s)


# --------------------------------------------------------------------------------------------
# manual use


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tools.neo4j_dev",
        description=f"Development Neo4j (password from ${PASSWORD_ENV}).",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("start", "stop", "status"):
        p = sub.add_parser(name)
        p.add_argument("--home", type=Path, required=True)
        if name == "start":
            p.add_argument("--bolt-port", type=int, default=7687)
            p.add_argument("--http-port", type=int, default=7474)
            p.add_argument("--timeout", type=float, default=120)
            p.add_argument("--heap", default=DEFAULT_HEAP)
            p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE")
        if name == "stop":
            p.add_argument("--timeout", type=float, default=60)
    sub.add_parser("build")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        if args.command == "build":
            print(build(DEFAULT_TOOLS_DIR))
        elif args.command == "start":
            conf: dict[str, str] = {}
            for kv in args.conf:
                key, sep, value = kv.partition("=")
                if not sep:
                    parser.error(f"--conf needs KEY=VALUE, got {kv!r}")
                conf[key] = value
            server = start(
                args.home,
                args.bolt_port,
                args.http_port,
                os.environ.get(PASSWORD_ENV, ""),
                args.timeout,
                conf,
                heap=args.heap,
            )
            print(
                f"{server.bolt_uri} {server.http_url} version={server.version} "
                f"pid={server.pid} log={server.log}"
            )
        elif args.command == "stop":
            print("stopped" if stop(args.home, args.timeout) else "not running")
        else:
            found = status(args.home)
            print(f"running {found.bolt_uri} pid={found.pid}" if found else "not running")
            return 0 if found else 3
    except Neo4jDevError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
