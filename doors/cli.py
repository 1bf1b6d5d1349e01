"""The `gumem` command: serve the API or MCP, run the worker, ingest, recall, trace.

It talks to the Neo4j at GUMEM_NEO4J_URI (default: the dev Neo4j's address on this machine) and
loads the prepared model directory; starting the dev Neo4j and preparing models are build
and development steps (`python -m tools`, `make run`, `make models`), not part of it."""

from __future__ import annotations

import argparse
import logging
import sys
import traceback
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version

from core import logs
from core.errors import (
    AuthError,
    ConfigError,
    GumemError,
    InputError,
    ServerUnreachable,
    StorageUnavailable,
)
from core.settings import get_settings
from doors.commands import (
    cmd_explain,
    cmd_failed,
    cmd_import,
    cmd_ingest,
    cmd_maintain,
    cmd_mcp,
    cmd_recall,
    cmd_serve,
    cmd_show,
    cmd_trace,
    cmd_worker,
    with_dev_key,
)

# the commands are doors/commands.py's; named here too, where the parser wires them
__all__ = [
    "EXIT_AUTH",
    "EXIT_FAILED",
    "EXIT_STORAGE",
    "EXIT_UNREACHABLE",
    "EXIT_USAGE",
    "cmd_explain",
    "cmd_failed",
    "cmd_import",
    "cmd_ingest",
    "cmd_maintain",
    "cmd_mcp",
    "cmd_recall",
    "cmd_serve",
    "cmd_show",
    "cmd_trace",
    "cmd_worker",
    "exit_code",
    "main",
    "parser",
    "with_dev_key",
]

# exit codes (also in `gumem --help`)
EXIT_FAILED = 1  # the command ran and reported failures, or the server answered an error
EXIT_USAGE = 2  # bad arguments, input or configuration
EXIT_UNREACHABLE = 3  # the GUMem server cannot be reached
EXIT_AUTH = 4  # no API key, or the server refused it
EXIT_STORAGE = 5  # Neo4j cannot be reached (in process, or the server's STORAGE_UNAVAILABLE)
EPILOG = """clients (ingest, import, recall, trace, failed) read the server's URL from --url,
else GUMEM_URL, else http://127.0.0.1:8000/graphql, and the API key from --key, else
GUMEM_API_KEY.

exit codes: 0 done; 1 failures reported (rejected items) or another server error; 2 bad
arguments, input or configuration; 3 the GUMem server cannot be reached; 4 no API key, or
the server refused it; 5 Neo4j cannot be reached."""


def _conn_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--url",
        default=None,
        help="the server's GraphQL URL (default: $GUMEM_URL, else http://127.0.0.1:8000/graphql)",
    )
    p.add_argument("--key", default=None, help="API key (default: $GUMEM_API_KEY)")


def _client_args(p: argparse.ArgumentParser) -> None:
    _conn_args(p)
    p.add_argument("--json", action="store_true", help="print the answer as JSON")


def _version() -> str:
    try:
        return version("gumem")
    except PackageNotFoundError:  # a checkout run without installing it
        return "unknown (not installed)"


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="gumem",
        description=__doc__,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--version", action="version", version=f"gumem {_version()}")
    ap.add_argument(
        "-v", "--verbose", action="store_true", help="debug logs, and tracebacks of crashes"
    )
    sub = ap.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = sub.add_parser("serve", help="serve GraphQL on GUMEM_HOST:GUMEM_PORT")
    p.set_defaults(func=cmd_serve)
    p = sub.add_parser("explain", help="dry-run extraction on a JSONL file (no database)")
    p.add_argument("file", help="JSONL file, one MessageInput object a line")
    p.set_defaults(func=cmd_explain)
    p = sub.add_parser("worker", help="process pending messages in the background")
    p.add_argument("--once", action="store_true", help="drain the queue once and exit")
    p.set_defaults(func=cmd_worker)
    p = sub.add_parser("maintain", help="run decay maintenance for a tenant")
    p.add_argument("--tenant", required=True, help="the tenant whose weights to recompute")
    p.add_argument("--json", action="store_true", help="print the counts as JSON")
    p.set_defaults(func=cmd_maintain)
    p = sub.add_parser("show", help="one Message, Fact, Summary or Topic by id, as stored")
    p.add_argument("id", help="the Message, Fact (f_...), Summary (s_...) or Topic id")
    p.add_argument("--tenant", required=True, help="the tenant it belongs to")
    p.add_argument(
        "--kind",
        choices=["Message", "Fact", "Summary", "Topic"],
        default=None,
        help="look only among these (default: all four)",
    )
    p.add_argument("--json", action="store_true", help="print the record as JSON")
    p.set_defaults(func=cmd_show)
    p = sub.add_parser("mcp", help="serve the MCP server (stdio, or streamable HTTP at /mcp)")
    p.add_argument(
        "--transport",
        choices=["stdio", "http"],
        default="stdio",
        help="stdio: one local agent, tenant GUMEM_MCP_TENANT (default 'dev'); http: "
        "streamable HTTP, the key of GUMEM_API_KEYS names the tenant",
    )
    p.add_argument("--port", type=int, default=None, help="http: instead of GUMEM_PORT")
    p.set_defaults(func=cmd_mcp)
    p = sub.add_parser("ingest", help="send a JSONL file of MessageInput objects")
    p.add_argument("file", help="JSONL file, one MessageInput object a line")
    p.add_argument("--batch", type=int, default=500, help="messages per addMessages request")
    _client_args(p)
    p.set_defaults(func=cmd_ingest)
    from gumem.importer import add_parser as add_import

    add_import(sub)
    _conn_args(sub.choices["import"])
    sub.choices["import"].set_defaults(func=cmd_import)
    p = sub.add_parser("recall", help="recall memory for a query")
    p.add_argument("query", help="the request, in the user's words (any language)")
    p.add_argument("--user", required=True, help="the user id whose memory to search")
    p.add_argument("--session", default=None, help="the current session id: its turns first")
    p.add_argument(
        "--now",
        default=None,
        help="the current time, ISO 8601 with offset: resolves 'yesterday' (default: now)",
    )
    p.add_argument("--as-of", default=None, help="recall the memory as it stood then (ISO 8601)")
    _client_args(p)
    p.set_defaults(func=cmd_recall)
    p = sub.add_parser("trace", help="provenance of a Summary, Fact or Message id")
    p.add_argument("id", help="a Summary (s_...), Fact (f_...) or Message id")
    _client_args(p)
    p.set_defaults(func=cmd_trace)
    p = sub.add_parser("failed", help="list failed messages, or re-queue them")
    p.add_argument(
        "action", choices=["list", "retry"], help="list them, or re-queue them for processing"
    )
    p.add_argument("ids", nargs="*", help="retry: these message ids")
    p.add_argument("--user", default=None, help="list: one user's; retry: all of one user's")
    p.add_argument("--limit", type=int, default=50, help="list: at most this many")
    p.add_argument("--offset", type=int, default=0, help="list: skip this many first")
    _client_args(p)
    p.set_defaults(func=cmd_failed)
    return ap


def exit_code(exc: GumemError) -> int:
    if isinstance(exc, ServerUnreachable):
        return EXIT_UNREACHABLE
    if isinstance(exc, AuthError):
        return EXIT_AUTH
    if isinstance(exc, StorageUnavailable):
        return EXIT_STORAGE
    if isinstance(exc, InputError | ConfigError):
        return EXIT_USAGE
    return EXIT_FAILED


def _fail(message: str, code: int) -> int:
    print(f"gumem: {message}", file=sys.stderr)
    return code


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command. Errors are one line on stderr and an exit code (EPILOG), never a
    traceback, unless -v asks for it on an unexpected one."""
    args = parser().parse_args(argv)
    try:
        settings = get_settings()
        logs.configure(settings.log_format, logging.DEBUG if args.verbose else logging.INFO)
        return int(args.func(args, settings))
    except GumemError as exc:
        return _fail(str(exc), exit_code(exc))
    except OSError as exc:  # a file argument that cannot be read
        where = f": {exc.filename}" if exc.filename else ""
        return _fail(f"{exc.strerror or type(exc).__name__}{where}", EXIT_USAGE)
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        inner = _gumem_error(exc)  # e.g. from the MCP server's task group
        if inner is not None:
            return _fail(str(inner), exit_code(inner))
        if args.verbose:
            traceback.print_exc()
        return _fail(f"unexpected {type(exc).__name__} (-v shows the traceback)", EXIT_FAILED)


def _gumem_error(exc: BaseException) -> GumemError | None:
    """The first GumemError inside (nested) exception groups."""
    if isinstance(exc, GumemError):
        return exc
    for inner in exc.exceptions if isinstance(exc, BaseExceptionGroup) else ():
        found = _gumem_error(inner)
        if found is not None:
            return found
    return None


if __name__ == "__main__":
    sys.exit(main())
