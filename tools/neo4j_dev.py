"""A real Neo4j 5 (Community) for development and tests, without Docker or a Neo4j install.

The launcher in ``tools/neo4j-dev`` (``dev.gumem.Neo4jDev``) runs an embedded Neo4j DBMS with
the Bolt and HTTP connectors and Neo4j Browser (``/browser/``), all from Maven Central
artifacts. This module builds it with Maven (once, cached: :mod:`tools.neo4j_build`),
starts it detached in its own process group, waits until an authenticated ``RETURN 1``
works, and stops it.

Everything about one server lives in its home directory (:mod:`tools.neo4j_home`: pid file,
ready marker, log, databases); its user, password rule, heap and JVM options are in
:mod:`tools.neo4j_conf`.

The password of user ``neo4j`` is handed to the launcher in the environment (never on the
command line) and is set on every start, so it is the one given to :func:`start`.

Manual use: ``NEO4J_DEV_PASSWORD=... python -m tools.neo4j_dev start --home DIR``
(also ``status``, ``stop``, ``build``).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from tools.locking import flock
from tools.neo4j_build import DEFAULT_TOOLS_DIR, Neo4jDevError, build, find_java
from tools.neo4j_conf import (
    DEFAULT_HEAP,
    HEAP,
    JVM_OPTS,
    PASSWORD_ENV,
    USER,
    validate_conf,
    validate_password,
    validate_port,
)
from tools.neo4j_home import (
    CHILDREN,
    LOCK_FILE,
    LOG_HEADER,
    MAIN_CLASS,
    PID_FILE,
    READY_FILE,
    DevServer,
    cds_opts,
    clear_stale,
    dev_server,
    finish_cds,
    is_launcher_alive,
    log_path,
    log_tail,
    open_log,
    read_pid,
    read_ready,
    reap,
    unlink,
    write_atomic,
)

log = logging.getLogger(__name__)

_POLL_S = 0.25
_KILL_WAIT_S = 10.0


# --------------------------------------------------------------------------------------------
# status


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
        clear_stale(home)
        return None
    fields = read_ready(home, pid)
    return dev_server(home, pid, fields) if fields else None


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
                f"see {logfile}\n{log_tail(logfile)}"
            )
        fields = read_ready(home, pid)
        if fields is not None:
            server = dev_server(home, pid, fields)
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
    validate_port("bolt_port", bolt_port)
    validate_port("http_port", http_port)
    if bolt_port == http_port:
        raise Neo4jDevError("bolt_port and http_port must differ")
    conf = dict(extra_conf or {})
    validate_conf(conf)
    if not HEAP.match(heap):
        raise Neo4jDevError(f"bad heap size {heap!r} (e.g. 512m, 1g)")
    home = home.resolve()
    home.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + timeout_s
    logfile = log_path(home)

    with flock(home / LOCK_FILE):
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
        clear_stale(home)

        for name, port in (("Bolt", bolt_port), ("HTTP", http_port)):
            if _port_in_use(port):
                raise Neo4jDevError(f"{name} port {port} on 127.0.0.1 is already in use")

        jar = build(tools_dir)
        java = find_java()
        cmd = [java, f"-Xmx{heap}", *JVM_OPTS]
        if cds:
            cmd += cds_opts(home, tools_dir.resolve(), java, jar)
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
        with open_log(logfile) as out:
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
        CHILDREN[proc.pid] = proc
        write_atomic(home / PID_FILE, f"{proc.pid}\n")
        log.info("starting Neo4j dev server for %s (pid %d, log %s)", home, proc.pid, logfile)
        try:
            server = _wait_ready(home, proc.pid, password, deadline, proc)
        except TimeoutError as exc:
            _stop_locked(home, 30, promote_cds=False)
            raise Neo4jDevError(
                f"the Neo4j dev server for {home} was not ready after {timeout_s:.0f} s "
                f"({exc}); it was stopped; see {logfile}\n{log_tail(logfile)}"
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
        clear_stale(home)
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
    reap(pid)
    for name in (PID_FILE, READY_FILE):
        unlink(home / name)
    finish_cds(home, promote=promote_cds and clean)
    return True


def stop(home: Path, timeout_s: float = 60) -> bool:
    """Stop the server of ``home``: SIGTERM, then SIGKILL after ``timeout_s``.

    Returns True if a server was running (and is now stopped), False if none was.
    """
    home = home.resolve()
    if not home.is_dir():
        return False
    with flock(home / LOCK_FILE):
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
