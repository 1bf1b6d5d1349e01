"""What each `gumem` subcommand does (doors/cli.py parses the arguments and turns errors into
exit codes): the server's own commands (serve, worker, maintain, show, explain, mcp) run in
this process; the client commands (ingest, import, recall, trace, failed) call a GUMem
server through the Python client (gumem/)."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import secrets
import signal
import sys
from pathlib import Path
from typing import Any

import uvloop
from pydantic import SecretStr

from core.errors import InputError
from core.settings import DEV_TENANT, Settings

log = logging.getLogger("gumem")


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
    from extract.chat.facts import extract_chats
    from extract.chat.question import with_questions
    from extract.events.behaviour import extract_events
    from extract.types import MessageRecord
    from service.models import Models
    from text.lang import detect_lang

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
