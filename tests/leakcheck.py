"""No log line of a test run holds the content of a message the run sent (issue 38).

tests/conftest.py installs this for the whole session:

- every log record this process creates (any logger, DEBUG and up; the libraries
  core/logs.py keeps at WARNING in every GUMem process stay there) is formatted and
  appended as a JSON line (test, logger, level, line) to a file, artifacts/test-logs.jsonl
  at the end; a record factory sees them all, whatever handlers a test or uvicorn sets up;
- the text users send is recorded with the test that sent it: every message `content`
  validated at the edge (core/inputs.parse_message), every recall `query` (parse_text),
  and every `content` in a JSON body a test sends with httpx (the servers tests start as
  subprocesses validate theirs out of reach);
- at the end that file and the `*.log` files the session's subprocesses wrote (under
  pytest's basetemp, bench/results/) are searched for any recorded text of 12 or more
  characters (its first NEEDLE characters), and a hit fails the session naming the logger
  (or file) and the tests, never the content.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

import core.inputs
from core.logs import QUIET_LOGGERS

MIN_CHARS = 12  # shorter texts ("yes", "ok, thanks") would match innocent lines
NEEDLE = 48  # a longer text is searched by its start: a truncated copy is a leak too
KEY = MIN_CHARS
FORMAT = logging.Formatter("%(message)s")
# clients the tests drive GUMem with, which no GUMem process runs: the MCP SDK's client logs
# every message it sends at DEBUG
TEST_CLIENTS = ("mcp.client",)


def needle(text: str) -> str | None:
    """What of a text is searched for; None when too short or too uniform ("xxxx…")."""
    n = text.strip()[:NEEDLE]
    return n if len(n) >= MIN_CHARS and len(set(n)) >= 5 else None


@dataclass
class Hit:
    where: str  # the logger, or a subprocess's log file
    logged_in: str  # the test running when it was logged ("" for a file)
    sent_by: str  # the test that sent the text


@dataclass
class LeakCheck:
    out: Path
    started: float = field(default_factory=time.time)
    test: str = "(no test yet)"
    sent: dict[str, str] = field(default_factory=dict)  # needle -> the first test sending it
    records: int = 0
    _file: Any = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _undo: list[Callable[[], None]] = field(default_factory=list)

    # -- recording ------------------------------------------------------------------------

    def record_text(self, text: Any) -> None:
        if isinstance(text, str) and (n := needle(text)) is not None:
            self.sent.setdefault(n, self.test)

    def forget(self, *texts: str) -> None:
        """Texts a test logs on purpose (the check's own tests): not searched for."""
        for text in texts:
            self.sent.pop(needle(text) or "", None)

    def record_body(self, body: Any) -> None:
        """Every `content` string anywhere in a JSON value."""
        if isinstance(body, dict):
            self.record_text(body.get("content"))
            for v in body.values():
                self.record_body(v)
        elif isinstance(body, list):
            for v in body:
                self.record_body(v)

    def _log_line(self, record: logging.LogRecord) -> None:
        try:
            line = FORMAT.format(record)
        except Exception:  # a bad format string: logging itself reports it elsewhere
            line = str(record.msg)
        self.records += 1
        row = {"test": self.test, "logger": record.name, "level": record.levelname, "line": line}
        with self._lock:
            self._file.write(json.dumps(row, ensure_ascii=False) + "\n")

    # -- install / uninstall --------------------------------------------------------------

    def install(self) -> None:
        self.out.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.out.open("w", encoding="utf-8")
        self._undo.append(self._file.close)

        factory = logging.getLogRecordFactory()

        def make(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = factory(*args, **kwargs)
            self._log_line(record)
            return record

        logging.setLogRecordFactory(make)
        self._undo.append(lambda: logging.setLogRecordFactory(factory))

        root = logging.getLogger()
        level = root.level
        root.setLevel(logging.DEBUG)
        self._undo.append(lambda: root.setLevel(level))
        for name in (*QUIET_LOGGERS, *TEST_CLIENTS):
            logging.getLogger(name).setLevel(logging.WARNING)

        parse_message = core.inputs.parse_message
        parse_text = core.inputs.parse_text

        @functools.wraps(parse_message)
        def recording_message(item: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(item, dict):
                self.record_text(item.get("content"))
            return parse_message(item, *args, **kwargs)

        @functools.wraps(parse_text)
        def recording_text(value: Any, field: str, *args: Any, **kwargs: Any) -> Any:
            if field == "query":
                self.record_text(value)
            return parse_text(value, field, *args, **kwargs)

        self._rebind(parse_message, recording_message)
        self._rebind(parse_text, recording_text)

        for cls in (httpx.Client, httpx.AsyncClient):
            self._wrap_send(cls)

    def _rebind(self, old: Any, new: Any) -> None:
        """`new` in core.inputs and wherever an imported module holds `old` by name."""
        for mod in list(sys.modules.values()):
            if getattr(mod, "__name__", "").split(".")[0] not in OURS:
                continue
            for name, value in list(vars(mod).items()):
                if value is old:
                    setattr(mod, name, new)
                    self._undo.append(functools.partial(setattr, mod, name, old))

    def _wrap_send(self, cls: Any) -> None:
        send = cls.send
        check = self

        def body_of(request: httpx.Request) -> None:
            if "json" not in request.headers.get("content-type", ""):
                return
            try:
                check.record_body(json.loads(request.content))
            except (httpx.RequestNotRead, ValueError, RecursionError):  # not ours to judge
                return

        if cls is httpx.AsyncClient:

            async def asend(client: Any, request: httpx.Request, *a: Any, **kw: Any) -> Any:
                body_of(request)
                return await send(client, request, *a, **kw)

            setattr(cls, "send", asend)  # noqa: B010 (mypy: no method assignment)
        else:

            def ssend(client: Any, request: httpx.Request, *a: Any, **kw: Any) -> Any:
                body_of(request)
                return send(client, request, *a, **kw)

            setattr(cls, "send", ssend)  # noqa: B010
        self._undo.append(functools.partial(setattr, cls, "send", send))

    def uninstall(self) -> None:
        while self._undo:
            self._undo.pop()()

    # -- the check ------------------------------------------------------------------------

    def _index(self) -> dict[str, list[str]]:
        keys: dict[str, list[str]] = {}
        for n in self.sent:
            keys.setdefault(n[:KEY], []).append(n)
        return keys

    @staticmethod
    def _found(line: str, keys: dict[str, list[str]]) -> Iterator[str]:
        for i in range(len(line) - KEY + 1):
            for n in keys.get(line[i : i + KEY], ()):
                if line.startswith(n, i):
                    yield n

    def check(self, log_files: list[Path]) -> list[Hit]:
        """Every (where, test) pair whose lines hold a recorded text."""
        keys = self._index()
        hits: dict[tuple[str, str, str], Hit] = {}
        if not keys:
            return []
        with self.out.open(encoding="utf-8") as f:
            for row in map(json.loads, f):
                for n in self._found(row["line"], keys):
                    hit = Hit(row["logger"], row["test"], self.sent[n])
                    hits.setdefault((hit.where, hit.logged_in, hit.sent_by), hit)
        for path in log_files:
            text = path.read_text(encoding="utf-8", errors="replace")
            for line in text.splitlines():
                for n in self._found(line, keys):
                    hit = Hit(str(path), "", self.sent[n])
                    hits.setdefault((hit.where, "", hit.sent_by), hit)
        return list(hits.values())

    def files_since_start(self, *dirs: Path) -> list[Path]:
        """The `*.log` files under `dirs` written during this session."""
        out = []
        for d in dirs:
            if d.is_dir():
                for p in d.rglob("*.log"):
                    if p.is_file() and p.stat().st_mtime >= self.started:
                        out.append(p)
        return out


OURS = {
    "core",
    "text",
    "packs",
    "corrections",
    "extract",
    "consolidation",
    "vectors",
    "graph",
    "service",
    "web",
    "api",
    "doors",
    "gumem",
    "tools",
    "bench",
    "tests",
}


def report(hits: list[Hit], check: LeakCheck, files: int) -> list[str]:
    head = (
        f"[log-leaks] {check.records} log records and {files} subprocess log files searched "
        f"for {len(check.sent)} texts sent by the tests"
    )
    if not hits:
        return [f"{head}: no log line holds one"]
    lines = [f"{head}: FAILED, {len(hits)} log sources hold message content (lines in {check.out})"]
    for h in sorted(hits, key=lambda h: (h.where, h.logged_in)):
        during = f" during {h.logged_in}" if h.logged_in else ""
        lines.append(f"  {h.where}{during}: content sent by {h.sent_by}")
    return lines


def keep_as(check: LeakCheck, final: Path) -> None:
    """The session's log file under its final name (the last session's, per checkout)."""
    os.replace(check.out, final)
    check.out = final
