"""`gumem import FILE`: chat histories in common export shapes, sent through the API.

Shapes (detected, or named with --format):
- jsonl: one JSON object a line; either GUMem's MessageInput (id, userId, sessionId, role,
  content, timestamp, ...) or a chat turn ({role, content}, optional id/timestamp/user/session)
- openai: a JSON object with a `messages` list of {role, content} (OpenAI chat format), a
  list of such objects, or a bare list of turns
- locomo: the LoCoMo conversation format (a list of {sample_id, conversation: {speaker_a,
  speaker_b, session_N: [{speaker, dia_id, text}], session_N_date_time}}); every turn is
  stored as the user's own (role user, metadata speaker and self) as in bench/locomo.py

Every message gets a stable id (its own, or one derived from user, session, position and
text), so an interrupted import is resumed by running it again: what is stored already comes
back as a duplicate. Items that cannot be stored are skipped locally with the reason (field
and rule, never the content); the summary counts stored, already stored and skipped by reason.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tqdm import tqdm

from core.errors import InputError
from core.inputs import parse_batch
from core.settings import Settings
from gumem.client_types import CHAT_ROLES, turn_id, turns_to_messages

FORMATS = ("auto", "jsonl", "openai", "locomo")
LOCOMO_TIME = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y")


@dataclass
class Loaded:
    """What a file gave: messages ready to send, and what was skipped and why."""

    format: str
    messages: list[dict[str, Any]] = field(default_factory=list)
    skipped: Counter[str] = field(default_factory=Counter)


@dataclass
class Options:
    user: str | None = None
    session: str | None = None
    start: datetime | None = None


def detect(path: Path, text: str) -> str:
    if path.suffix == ".jsonl":
        return "jsonl"
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return "jsonl"  # one object a line
    first = data[0] if isinstance(data, list) and data else data
    if isinstance(first, dict) and isinstance(first.get("conversation"), dict):
        return "locomo"
    return "openai"


def load(path: Path, fmt: str, opts: Options) -> Loaded:
    text = path.read_text(encoding="utf-8")
    if fmt == "auto":
        fmt = detect(path, text)
    out = Loaded(fmt)
    if fmt == "jsonl":
        _jsonl(text, path, opts, out)
    elif fmt == "openai":
        _openai(json.loads(text), path, opts, out)
    else:
        _locomo(json.loads(text), opts, out)
    return out


def _jsonl(text: str, path: Path, opts: Options, out: Loaded) -> None:
    start = opts.start
    for n, line in enumerate(text.splitlines()):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            out.skipped["line is not JSON"] += 1
            continue
        if not isinstance(item, dict):
            out.skipped["line is not a JSON object"] += 1
            continue
        role = item.get("role")
        if role in ("system", "tool") and "userId" not in item:
            out.skipped[f"{role} turn (not the user's memory)"] += 1
            continue
        user = item.get("userId") or item.get("user") or opts.user
        session = item.get("sessionId") or item.get("session") or opts.session or path.stem
        if not user:
            out.skipped["no userId (give --user)"] += 1
            continue
        msg = dict(item)
        for k in ("user", "session"):
            msg.pop(k, None)
        msg["userId"], msg["sessionId"] = user, session
        msg["role"] = CHAT_ROLES.get(str(role).lower(), role) if role else role
        if not msg.get("timestamp"):
            if start is None:
                out.skipped["no timestamp (give --start)"] += 1
                continue
            msg["timestamp"] = (start + timedelta(seconds=n)).isoformat()
        if not msg.get("id"):
            msg["id"] = turn_id(str(user), str(session), n, str(role), str(msg.get("content")))
        msg.setdefault("eventType", "message")
        out.messages.append(msg)


def _conversations(data: Any) -> Iterator[tuple[int, list[Any], dict[str, Any]]]:
    """(index, turns, the conversation object) for each conversation in an OpenAI export."""
    if isinstance(data, dict):
        data = [data]
    if isinstance(data, list) and data and all(isinstance(t, dict) and "role" in t for t in data):
        yield 0, data, {}
        return
    for i, conv in enumerate(data if isinstance(data, list) else []):
        if isinstance(conv, dict) and isinstance(conv.get("messages"), list):
            yield i, conv["messages"], conv


def _openai(data: Any, path: Path, opts: Options, out: Loaded) -> None:
    found = False
    for i, turns, conv in _conversations(data):
        found = True
        user = conv.get("user") or opts.user
        if not user:
            out.skipped["no user (give --user)"] += len(turns)
            continue
        session = conv.get("id") or opts.session or f"{path.stem}:{i}"
        ignored = [t for t in turns if str(t.get("role", "")).lower() not in CHAT_ROLES]
        for t in ignored:
            out.skipped[f"{t.get('role')} turn (not the user's memory)"] += 1
        start = opts.start or datetime.now(UTC).replace(microsecond=0)
        msgs = turns_to_messages(turns, str(user), str(session), start=start)
        empty = len(turns) - len(ignored) - len(msgs)
        if empty:
            out.skipped["empty content"] += empty
        out.messages.extend(msgs)
    if not found:
        out.skipped["no `messages` list found"] += 1


def _locomo_time(raw: Any, fallback: datetime) -> datetime:
    for f in LOCOMO_TIME:
        try:
            return datetime.strptime(str(raw).strip(), f).replace(tzinfo=UTC)
        except ValueError:
            continue
    return fallback


def _locomo(data: Any, opts: Options, out: Loaded) -> None:
    for conv in data if isinstance(data, list) else [data]:
        c = conv.get("conversation") if isinstance(conv, dict) else None
        if not isinstance(c, dict):
            out.skipped["not a LoCoMo conversation"] += 1
            continue
        cid = str(conv.get("sample_id") or "conv")
        user = opts.user or cid
        nums = sorted(
            int(k.split("_")[1])
            for k in c
            if k.startswith("session_") and k.count("_") == 1 and k.split("_")[1].isdigit()
        )
        last = opts.start or datetime(2023, 1, 1, tzinfo=UTC)
        for n in nums:
            start = _locomo_time(c.get(f"session_{n}_date_time"), last + timedelta(days=1))
            for i, t in enumerate(c.get(f"session_{n}") or []):
                text = str(t.get("text") or "").strip()
                if t.get("blip_caption"):
                    text = f"{text} [shares an image: {t['blip_caption']}]".strip()
                if not text:
                    out.skipped["empty content"] += 1
                    continue
                ts = start + timedelta(minutes=i)
                dia = t.get("dia_id") or f"D{n}:{i + 1}"
                out.messages.append(
                    {
                        "id": f"{cid}:{dia}",
                        "userId": user,
                        "sessionId": f"{cid}:S{n}",
                        "role": "user",
                        "content": text,
                        "timestamp": ts.isoformat(),
                        "eventType": "message",
                        "page": "chat",
                        "metadata": {"speaker": t.get("speaker"), "self": True},
                    }
                )
                last = max(last, ts)


def validate(loaded: Loaded, settings: Settings) -> list[dict[str, Any]]:
    """The messages the API will accept; the others counted under their field and rule."""
    ok = []
    for m in loaded.messages:
        try:
            parse_batch([m], settings)
        except InputError as exc:
            loaded.skipped[f"invalid {exc.field}: {exc.reason}"] += 1
            continue
        ok.append(m)
    return ok


def run_import(args: argparse.Namespace, settings: Settings) -> int:
    from gumem.client import Client

    try:
        start = datetime.fromisoformat(args.start) if args.start else None
    except ValueError:
        raise InputError("--start", "an ISO 8601 date-time with a UTC offset") from None
    if start is not None and start.tzinfo is None:
        raise InputError("--start", "an ISO 8601 date-time with a UTC offset")
    opts = Options(user=args.user, session=args.session, start=start)
    loaded = load(Path(args.file), args.format, opts)
    read = len(loaded.messages) + sum(loaded.skipped.values())
    good = validate(loaded, settings)
    summary: dict[str, Any] = {
        "file": args.file,
        "format": loaded.format,
        "read": read,
        "valid": len(good),
        "stored": 0,
        "alreadyStored": 0,
        "skipped": dict(loaded.skipped),
        "rejected": [],
    }
    if not args.dry_run and good:
        with (
            Client(args.url, args.key, timeout_s=args.timeout) as client,
            tqdm(total=len(good), unit="msg", file=sys.stderr, disable=args.quiet) as bar,
        ):
            for s in range(0, len(good), args.batch):
                chunk = good[s : s + args.batch]
                res = client.add_messages(chunk)
                summary["stored"] += len(res["accepted"])
                summary["alreadyStored"] += len(res["duplicates"])
                for e in res["errors"]:
                    where = chunk[e["index"]]["id"] if e.get("index") is not None else None
                    summary["rejected"].append({"id": where, **e})
                bar.update(len(chunk))
    print(json.dumps(summary, ensure_ascii=False, indent=None if args.json else 2))
    return 1 if summary["rejected"] else 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "import",
        help="import a chat history (JSONL, OpenAI messages, LoCoMo) through the API",
    )
    p.add_argument("file", help="the chat history file")
    p.add_argument(
        "--format", choices=FORMATS, default="auto", help="the file's format (default: guessed)"
    )
    p.add_argument("--user", default=None, help="the user id when the file has none")
    p.add_argument("--session", default=None, help="the session id when the file has none")
    p.add_argument(
        "--start",
        default=None,
        help="ISO time of the first turn when the file has no timestamps (default: now)",
    )
    p.add_argument("--batch", type=int, default=200, help="messages per addMessages request")
    p.add_argument("--timeout", type=float, default=120.0, help="seconds per batch request")
    p.add_argument("--dry-run", action="store_true", help="parse and summarise, send nothing")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--json", action="store_true", help="the summary on one line")
