"""Logging for GUMem's processes, configured at their entry points: text or JSON lines
(GUMEM_LOG_FORMAT) on stderr, each with the id of the HTTP request it belongs to.

Nothing here adds content to a line: a request is logged by method, path, status and
duration (web/edge.py `AccessLog`), never its query string or body."""

from __future__ import annotations

import json
import logging
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import Literal

LogFormat = Literal["text", "json"]

# the id of the request being served (web/edge.py sets it), None outside a request
REQUEST_ID: ContextVar[str | None] = ContextVar("gumem_request_id", default=None)
# what an access line carries besides its message (JSON keys, `extra=` of the record)
ACCESS_FIELDS = ("method", "path", "status", "duration_ms")
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(request_id)s]: %(message)s"
# libraries whose lower levels carry what they send: the Neo4j driver's DEBUG (query
# parameters), httpx's INFO (URLs, query strings included; httpx2 is the MCP SDK's fork)
QUIET_LOGGERS = ("neo4j", "httpx", "httpcore", "httpx2", "httpcore2")


class RequestId(logging.Filter):
    """Gives every record `request_id` (the request's, or "-")."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not hasattr(record, "request_id"):
            record.request_id = REQUEST_ID.get() or "-"
        return True


class NoQueryString(logging.Filter):
    """uvicorn's access line ("%s - "%s %s HTTP/%s" %d") without the query string, for a
    server run with its access log on (`gumem serve` turns it off)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) == 5 and isinstance(args[2], str):
            record.args = (args[0], args[1], args[2].split("?", 1)[0], args[3], args[4])
        return True


class JsonLines(logging.Formatter):
    """One JSON object a line: time (UTC, ISO 8601), level, logger, message, request_id,
    an access line's fields, and a traceback when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid = getattr(record, "request_id", None)
        if rid and rid != "-":
            out["request_id"] = rid
        for key in ACCESS_FIELDS:
            if (value := getattr(record, key, None)) is not None:
                out[key] = value
        if record.exc_info:
            out["exc"] = self.formatException(record.exc_info)
        return json.dumps(out, ensure_ascii=False)


class _Handler(logging.StreamHandler):  # type: ignore[type-arg]
    """The stderr handler `configure` installs (and replaces when called again)."""


def configure(fmt: LogFormat = "text", level: int = logging.INFO) -> None:
    """The root logger writes `fmt` lines to stderr at `level`, unless something else
    configured it first (a host application, a test run: then its handlers stay, as with
    `logging.basicConfig`). uvicorn's loggers go through it (their own access log dropped,
    or stripped of query strings). Lines that carry what they send are kept out
    (QUIET_LOGGERS)."""
    for name in QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).handlers.clear()
        logging.getLogger(name).propagate = True
    access = logging.getLogger("uvicorn.access")
    if not any(isinstance(f, NoQueryString) for f in access.filters):
        access.addFilter(NoQueryString())
    root = logging.getLogger()
    if any(not isinstance(h, _Handler) for h in root.handlers):
        return
    handler = _Handler()
    handler.addFilter(RequestId())
    handler.setFormatter(JsonLines() if fmt == "json" else logging.Formatter(TEXT_FORMAT))
    for old in root.handlers[:]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
