"""The `gumem` command: serve the API or MCP, run the worker, ingest, recall, trace.

It talks to the Neo4j at GUMEM_NEO4J_URI (default: the dev Neo4j's address on this machine) and
loads the prepared model directory; starting the dev Neo4j and preparing models are build
and development steps (`python -m tools`, `make run`, `make models`), not part of it."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import secrets
import signal
import sys
import traceback
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import uvloop
from pydantic import SecretStr

from core import logs
from core.errors import (
    AuthError,
    ConfigError,
    GumemError,
    InputError,
    ServerUnreachable,
    StorageUnavailable,
)
from core.settings import DEV_TENANT, Settings, get_settings

log = logging.getLogger("gumem")

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


def _read_jsonl(path: str) -> list[Any]:
    """One JSON value per non-empty line; a line that is not JSON is an InputError."""
    out = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise InputError(path, f"line {n} is not JSON ({exc.msg})") from None
    return out


def _print(obj: Any, as_json: bool) -> None:
    if as_json:
        print(json.dumps(obj, ensure_ascii=False, indent=2, default=str))
    elif isinstance(obj, dict):
        for k, v in obj.items():
            print(f"{k}: {v}")
    else:
        print(obj)


def with_dev_key(settings: Settings) -> tuple[Settings, str | None]:
    """Without GUMEM_API_KEYS: the settings with one generated key for DEV_TENANT (the
    tenant `gumem mcp` over stdio uses by default), and that key."""
    if settings.api_keys.get_secret_value():
        return settings, None
    key = secrets.token_urlsafe(24)
    return settings.model_copy(update={"api_keys": SecretStr(f"{key}={DEV_TENANT}")}), key


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    import uvicorn

    from api.app import server_config

    settings, key = with_dev_key(settings)
    if key is not None:
        print(f"No GUMEM_API_KEYS set: development key for tenant '{DEV_TENANT}': {key}")
        print(f"  for the clients and the CLI:  export GUMEM_API_KEY={key}")
        print(f"  for HTTP:  Authorization: Bearer {key}")
        print(f"  `gumem mcp` over stdio uses tenant '{DEV_TENANT}' too (GUMEM_MCP_TENANT)")
    print(f"GraphiQL:      http://{settings.host}:{settings.port}/graphql")
    uvicorn.Server(server_config(settings)).run()
    return 0


def cmd_worker(args: argparse.Namespace, settings: Settings) -> int:
    """Process pending Messages (for GUMEM_PROCESS_MODE=async or large imports)."""
    from service.runtime import Runtime
    from service.worker import lower_priority

    lower_priority(settings.worker_nice)  # background work: the API's requests go first

    async def run() -> int:
        rt = Runtime(settings)
        memory = await rt.start()
        try:
            if memory.pipeline is None:
                return 1
            if args.once:
                done = await memory.pipeline.process_pending(limit=10_000)
                print(f"processed {done} messages")
                return 0
            stop = asyncio.Event()  # SIGTERM (docker stop, scale down) or Ctrl-C
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, stop.set)
            rt.start_worker()
            await stop.wait()
            log.info("worker stopping")
            return 0
        finally:
            await rt.close()

    try:
        # uvloop, as uvicorn gives the API: the Neo4j driver's Python work per transaction,
        # much of a worker's own CPU, costs 10-20 % less on it than on asyncio's loop
        return uvloop.run(run())
    except KeyboardInterrupt:
        return 0


def cmd_maintain(args: argparse.Namespace, settings: Settings) -> int:
    """Decay: recompute weights and move memory_status for one tenant."""
    from service.runtime import Runtime

    async def run() -> dict[str, int]:
        rt = Runtime(settings)
        memory = await rt.start()
        try:
            return await memory.run_maintenance(args.tenant)
        finally:
            await rt.close()

    _print(asyncio.run(run()), args.json)
    return 0


def cmd_show(args: argparse.Namespace, settings: Settings) -> int:
    """One Message, Fact, Summary or Topic of a tenant by its id, as stored (an admin read
    through the neomodel classes; nothing is processed)."""
    from dataclasses import asdict

    from service.runtime import Runtime

    async def run() -> dict[str, Any]:
        rt = Runtime(settings)
        memory = await rt.start(apply=False, process=False)
        try:
            record = await memory.show(args.tenant, args.id, args.kind)
        finally:
            await rt.close()
        return {"kind": type(record).__name__.removeprefix("Stored"), **asdict(record)}

    _print(asyncio.run(run()), args.json)
    return 0


def cmd_explain(args: argparse.Namespace, settings: Settings) -> int:
    """Dry run of extraction on a JSONL file: the Facts it would write and, for everything
    else, why not (greeting, below the evidence threshold, ...). Touches no database."""
    from core.inputs import parse_batch
    from extract.behaviour import extract_events
    from extract.chat_answers import with_questions
    from extract.facts import extract_chats
    from extract.lang import detect_lang
    from extract.types import MessageRecord
    from service.models import Models

    items = _read_jsonl(args.file)
    msgs = with_questions(
        [
            MessageRecord(
                m.message_id,
                m.user_id,
                m.session_id,
                m.role,
                m.content,
                m.timestamp,
                m.event_type,
                m.page,
                m.metadata,
                detect_lang(m.content),
            )
            for m in parse_batch(items, settings)
        ]
    )
    models = Models(settings)
    chat = [m for m in msgs if m.event_type == "message"]
    events = [m for m in msgs if m.event_type != "message"]
    found = [*extract_chats(chat, models.en, models.zh)]
    if events:
        found.append(extract_events(events, models.en, models.zh))
    out = {
        "facts": [
            {
                "content": f.content,
                "kind": f.kind,
                "slot": f.slot,
                "subject": f.subject,  # None: the user's own
                "subject_kind": f.subject_kind,
                "explicit": f.explicit,
                "confidence": f.confidence,
                "sources": list(f.source_message_ids),
            }
            for ex in found
            for f in ex.facts
        ],
        "rejected": [
            {"sources": list(r.source_message_ids), "reason": r.reason}
            for ex in found
            for r in ex.rejections
        ],
    }
    _print(out, True)
    return 0


def cmd_mcp(args: argparse.Namespace, settings: Settings) -> int:
    """The MCP server: stdio for a local agent (tenant GUMEM_MCP_TENANT), or streamable
    HTTP at /mcp on GUMEM_HOST:GUMEM_PORT with the API keys of GUMEM_API_KEYS."""
    from doors import mcp_server

    if args.transport == "http" and not settings.tenants_by_key():
        print("gumem: GUMEM_API_KEYS must be set for MCP over HTTP", file=sys.stderr)
        return 2
    if args.port is not None:
        settings = settings.model_copy(update={"port": args.port})
    mcp_server.run(settings, args.transport)
    return 0


def cmd_import(args: argparse.Namespace, settings: Settings) -> int:
    from gumem.importer import run_import

    return run_import(args, settings)


def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    from gumem.client import Client

    items = _read_jsonl(args.file)
    with Client(args.url, args.key) as client:
        total: dict[str, Any] = {"accepted": 0, "duplicates": 0, "errors": []}
        for start in range(0, len(items), args.batch):
            res = client.add_messages(items[start : start + args.batch])
            total["accepted"] += len(res["accepted"])
            total["duplicates"] += len(res["duplicates"])
            total["errors"] += res["errors"]
    _print(total, args.json)
    return 1 if total["errors"] else 0


def cmd_recall(args: argparse.Namespace, settings: Settings) -> int:
    from gumem.client import Client

    with Client(args.url, args.key) as client:
        res = client.memory(
            args.user, args.query, session_id=args.session, now=args.now, as_of=args.as_of
        )
    if args.json:
        _print(res, True)
    else:
        print(res["formattedContext"])
    return 0


def cmd_trace(args: argparse.Namespace, settings: Settings) -> int:
    from gumem.client import Client

    with Client(args.url, args.key) as client:
        res = client.trace(args.id)
    _print(res, True) if args.json else print(res.get("cypher", ""))
    return 0


def cmd_failed(args: argparse.Namespace, settings: Settings) -> int:
    """List Messages whose processing failed, or re-queue them (by id, or a user's all)."""
    from gumem.client import Client

    with Client(args.url, args.key) as client:
        if args.action == "list":
            rows = client.failed_messages(args.user, args.limit, args.offset)
            if args.json:
                _print(rows, True)
            for r in [] if args.json else rows:
                print(
                    f"{r['id']}\tuser={r['userId']}\treason={r['reason']}\t"
                    f"attempts={r['attempts']}\tlast={r['lastAttemptAt']}"
                )
            return 0
        if args.ids and args.user:
            print("gumem: give message ids or --user, not both", file=sys.stderr)
            return 2
        if args.ids:
            n = client.retry_messages(args.ids)
        elif args.user:
            n = client.retry_failed(args.user)
        else:
            print("gumem: give message ids or --user", file=sys.stderr)
            return 2
    _print({"requeued": n}, args.json)
    return 0


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
