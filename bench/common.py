"""Shared helpers of the benchmarks: a private Neo4j, a uvicorn API, tables, timers, JSON."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from pydantic import SecretStr

from core.settings import ROOT, Settings

RESULTS = ROOT / "bench" / "results"
NEO4J_HOME = Path("/tmp/gumem-bench-neo4j")  # + "-<bolt port>": runs on other ports never share it
BOLT_PORT = 7690
HTTP_PORT = 7476
PASSWORD = "bench-password-1"
FORBIDDEN_PORTS = {7687, 7474, 7688, 7475}


@dataclass
class Neo4jHandle:
    uri: str
    password: str
    home: Path | None  # None: an external server (we do not own it)
    pid: int | None


def add_neo4j_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--neo4j-uri", help="use this Neo4j instead of starting a private one")
    p.add_argument("--neo4j-password", default=PASSWORD)
    p.add_argument(
        "--neo4j-home", type=Path, help=f"default {NEO4J_HOME}-<bolt port>: one directory per port"
    )
    p.add_argument("--keep-neo4j", action="store_true", help="leave the private Neo4j running")
    p.add_argument("--bolt-port", type=int, default=BOLT_PORT)
    p.add_argument("--http-port", type=int, default=HTTP_PORT)
    p.add_argument(
        "--neo4j-conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Neo4j setting for the private Neo4j (repeatable)",
    )


@contextlib.contextmanager
def neo4j(args: argparse.Namespace, fresh: bool = True) -> Iterator[Neo4jHandle]:
    """The external Neo4j given by --neo4j-uri, else a private one started (and stopped) here."""
    if args.neo4j_uri:
        yield Neo4jHandle(args.neo4j_uri, args.neo4j_password, None, None)
        return
    from tools import neo4j_dev

    home: Path = args.neo4j_home or Path(f"{NEO4J_HOME}-{args.bolt_port}")
    if {args.bolt_port, args.http_port} & FORBIDDEN_PORTS:
        raise SystemExit(f"ports {sorted(FORBIDDEN_PORTS)} belong to others")
    neo4j_dev.stop(home)
    if fresh:
        shutil.rmtree(home, ignore_errors=True)
    t0 = time.perf_counter()
    server = neo4j_dev.start(
        home,
        args.bolt_port,
        args.http_port,
        PASSWORD,
        timeout_s=240,
        heap="1g",
        extra_conf={
            "server.memory.pagecache.size": "1g",
            # store sizes stay current (phases also force a checkpoint before measuring)
            "db.checkpoint.interval.time": "3s",
            **dict(kv.split("=", 1) for kv in getattr(args, "neo4j_conf", [])),
        },
    )
    log(f"neo4j {server.version} up at {server.bolt_uri} in {time.perf_counter() - t0:.1f}s")
    try:
        yield Neo4jHandle(server.bolt_uri, PASSWORD, home, server.pid)
    finally:
        if not args.keep_neo4j:
            neo4j_dev.stop(home)
            log("neo4j stopped")


BENCH_PROCESS_TIMEOUT_S = 3600.0


def settings_for(h: Neo4jHandle, **kw: Any) -> Settings:
    """Settings for a benchmark: sync processing never hands a batch to the worker."""
    kw.setdefault("process_timeout_s", BENCH_PROCESS_TIMEOUT_S)
    return Settings(neo4j_uri=h.uri, neo4j_password=SecretStr(h.password), **kw)


def log(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


# -- process measurements (Linux /proc; psutil is not installed) -----------------------------


def peak_rss_mb(pid: int) -> float | None:
    """VmHWM: the peak resident set size of a process, in MiB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def _stat_fields(stat: Path) -> list[str] | None:
    """The fields of a /proc stat file after the command name (state first)."""
    try:
        return stat.read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None


def cpu_seconds(pid: int) -> float | None:
    """User+system CPU time of a process (and its reaped children), in seconds."""
    fields = _stat_fields(Path(f"/proc/{pid}/stat"))
    if fields is None:
        return None
    tick = os.sysconf("SC_CLK_TCK")
    return sum(int(x) for x in fields[11:15]) / tick


def jit_cpu_seconds(pid: int) -> float | None:
    """CPU seconds of a JVM's JIT compiler threads ("C1/C2 CompilerThread"): a fresh
    Neo4j spends much of its CPU compiling its own code for minutes after start."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return None
    for t in tasks:
        try:
            if not (t / "comm").read_text().startswith(("C1 Compiler", "C2 Compiler")):
                continue
        except OSError:
            continue
        fields = _stat_fields(t / "stat")
        if fields is not None:
            total += int(fields[11]) + int(fields[12])
    return total / tick


def tree_cpu_seconds(pid: int) -> float | None:
    """cpu_seconds of a process plus its live descendants (e.g. extraction children)."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        fields = _stat_fields(d / "stat")
        if fields is None or len(fields) < 2 or not fields[1].isdigit():
            continue
        children.setdefault(int(fields[1]), []).append(int(d.name))
    own = cpu_seconds(pid)
    if own is None:
        return None
    total, todo = own, list(children.get(pid, []))
    while todo:
        c = todo.pop()
        total += cpu_seconds(c) or 0.0
        todo.extend(children.get(c, []))
    return total


def dir_mb(path: Path) -> float:
    total = 0
    for p in path.rglob("*"):
        with contextlib.suppress(OSError):
            if p.is_file():
                total += p.stat().st_size
    return total / 2**20


def store_mb(h: Neo4jHandle) -> dict[str, float] | None:
    """Sizes of the neo4j database's store files and transaction logs."""
    if h.home is None:
        return None
    data = h.home / "data"
    return {
        "store": dir_mb(data / "databases" / "neo4j"),
        "tx_logs": dir_mb(data / "transactions" / "neo4j"),
    }


def loadavg() -> tuple[float, float, float]:
    return os.getloadavg()


# -- the GraphQL API in its own uvicorn process ----------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


@dataclass
class Api:
    proc: subprocess.Popen[bytes]
    url: str
    key: str

    @property
    def pid(self) -> int:
        return self.proc.pid


def gumem_env(
    h: Neo4jHandle,
    tenant: str,
    key: str = "bench-key",
    process_mode: str = "sync",
    run_worker: bool = False,
    extra: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment of a benchmark's API or `gumem worker` process on this Neo4j."""
    return dict(
        os.environ,
        GUMEM_NEO4J_URI=h.uri,
        GUMEM_NEO4J_PASSWORD=h.password,
        GUMEM_API_KEYS=f"{key}={tenant}",
        GUMEM_PROCESS_MODE=process_mode,
        GUMEM_PROCESS_TIMEOUT_S=str(BENCH_PROCESS_TIMEOUT_S),
        # off by default: other phases' queued messages are not this one's work
        GUMEM_RUN_WORKER="true" if run_worker else "false",
        **(extra or {}),
    )


@contextlib.contextmanager
def serve_api(
    h: Neo4jHandle,
    tenant: str,
    process_mode: str = "sync",
    key: str = "bench-key",
    run_worker: bool = False,
    extra_env: Mapping[str, str] | None = None,
) -> Iterator[Api]:
    """uvicorn serving api.app:create_app on 127.0.0.1 (a free port), stopped on exit."""
    port = free_port()
    env = gumem_env(h, tenant, key, process_mode, run_worker, extra_env)
    logf = open(RESULTS / f"uvicorn-{port}.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "--factory",
            "api.app:create_app",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--no-access-log",
        ],
        cwd=ROOT,
        env=env,
        stdout=logf,
        stderr=subprocess.STDOUT,
    )
    api = Api(proc, f"http://127.0.0.1:{port}/graphql", key)
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"uvicorn exited ({proc.returncode}); see {logf.name}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=1).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not come up in 120s")
            time.sleep(0.2)
        yield api
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        logf.close()


def gql(client: httpx.Client, api: Api, query: str, variables: dict[str, Any]) -> Any:
    r = client.post(
        api.url,
        json={"query": query, "variables": variables},
        headers={"Authorization": f"Bearer {api.key}"},
    )
    r.raise_for_status()
    body = r.json()
    if body.get("errors"):
        raise RuntimeError(f"GraphQL errors: {body['errors'][:2]}")
    return body["data"]


def outcome_of(r: httpx.Response, add: bool) -> str:
    """ "ok", or what went wrong with one GraphQL call: an error code, HTTP status, or
    ITEM_ERRORS (an addMessages whose items were rejected)."""
    if r.status_code >= 500:
        return f"http{r.status_code}"
    try:
        body = r.json()
    except json.JSONDecodeError:
        return f"http{r.status_code}-notjson"
    if body.get("errors"):
        return str(body["errors"][0].get("extensions", {}).get("code", "NO_CODE"))
    if r.status_code != 200:
        return f"http{r.status_code}"
    if add and body["data"]["addMessages"]["errors"]:
        return "ITEM_ERRORS"
    return "ok"


# -- output ----------------------------------------------------------------------------------


def percentile(xs: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile, q in [0, 100]."""
    s = sorted(xs)
    if not s:
        return float("nan")
    pos = (len(s) - 1) * q / 100
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.3f}" if abs(v) < 10 else f"{v:,.1f}"
    return "-" if v is None else str(v)


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], title: str = "") -> str:
    cells = [[fmt(c) for c in r] for r in rows]
    widths = [
        max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)
    ]
    line = "  ".join("-" * w for w in widths)
    out = [title] if title else []
    out.append("  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)))
    out.append(line)
    for r in cells:
        out.append(
            "  ".join(
                c.rjust(w) if i else c.ljust(w)
                for i, (c, w) in enumerate(zip(r, widths, strict=True))
            )
        )
    return "\n".join(out)


def write_json(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n", encoding="utf-8"
    )
    log(f"wrote {path}")


def commit() -> str | None:
    """HEAD of the checkout the benchmark runs from, "+dirty" if it has local changes."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=ROOT,
            capture_output=True,
            text=True,
        ).stdout.strip()
    except OSError:
        return None
    return f"{head}+dirty" if head and dirty else head or None


def mem_total_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024**2, 1)
    except OSError:
        return None
    return None


def machine() -> dict[str, Any]:
    return {
        "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "commit": commit(),
        "cpus": os.cpu_count(),
        "mem_gib": mem_total_gib(),
        "loadavg_start": loadavg(),
        "python": sys.version.split()[0],
    }


class Timer:
    def __init__(self) -> None:
        self.t0 = time.perf_counter()

    @property
    def s(self) -> float:
        return time.perf_counter() - self.t0


RESULTS.mkdir(parents=True, exist_ok=True)


def run_bench(
    args: argparse.Namespace,
    run: Callable[[argparse.Namespace, Neo4jHandle], Coroutine[Any, Any, dict[str, Any]]],
    report: Callable[[dict[str, Any]], str],
    fresh: bool = True,
) -> dict[str, Any]:
    """The shared tail of every bench main(): Neo4j up, run, print the table, write JSON."""
    import asyncio

    with neo4j(args, fresh=fresh) as h:
        res: dict[str, Any] = asyncio.run(run(args, h))
    print(report(res))
    write_json(Path(args.out), res)
    return res
