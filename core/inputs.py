"""Validation of incoming Messages at the edge: every error names the item and field."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from core.errors import InputError
from core.settings import Settings

# what a Message may be: its role and, for behaviour events, the event's type
EVENT_TYPES = (
    "message",
    "search",
    "filter",
    "view",
    "click",
    "favorite",
    "dwell",
    "skip",
    "purchase",
    "tool_call",
)
ROLES = ("user", "assistant", "system", "tool", "event")

# a recall query's most characters (documented in the README); a longer one is BAD_INPUT
# naming `query`. Full-text search reads a bounded part of it (graph/recall.py).
MAX_QUERY_CHARS = 2000

_ID = re.compile(r"^[\w.:@/+\-]{1,200}$")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_MIN_TS = datetime(1970, 1, 1, tzinfo=UTC)
_MAX_TS = datetime(2100, 1, 1, tzinfo=UTC)
_MAX_OFFSET = timedelta(hours=18)  # Neo4j's range of zone offsets (ISO 8601's too)
_MAX_DEPTH = 8


@dataclass(frozen=True)
class MessageHead:
    """What every record of a Message starts with: its ids, role, text and time."""

    message_id: str
    user_id: str
    session_id: str
    role: str
    content: str
    timestamp: datetime


@dataclass(frozen=True)
class MessageIn(MessageHead):
    """A checked incoming Message."""

    event_type: str
    page: str | None
    metadata: dict[str, Any]


def _ident(value: Any, field: str, index: int) -> str:
    if not isinstance(value, str) or not value:
        raise InputError(field, "required, a non-empty string", index)
    if not _ID.fullmatch(value):
        raise InputError(field, "1-200 characters of letters, digits and ._:@/+-", index)
    return value


def _text(value: Any, field: str, index: int | None, limit: int) -> str:
    if not isinstance(value, str):
        raise InputError(field, "must be a string", index)
    if len(value) > limit:
        raise InputError(field, f"longer than {limit} characters", index)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise InputError(field, "not valid UTF-8 (lone surrogate)", index) from None
    if _CONTROL.search(value):
        raise InputError(field, "contains control characters", index)
    return value


def _instant(ts: datetime, field: str, index: int | None) -> datetime:
    """An aware datetime Neo4j can store and recall can shift by its windows."""
    offset = ts.utcoffset()
    if offset is None:
        raise InputError(field, "needs a time zone offset (e.g. Z or +08:00)", index)
    if abs(offset) > _MAX_OFFSET or offset % timedelta(minutes=1):
        raise InputError(field, "time zone offset beyond ±18:00 or not in whole minutes", index)
    if not _MIN_TS <= ts < _MAX_TS:
        raise InputError(field, "outside 1970-2100", index)
    return ts


def _timestamp(value: Any, index: int) -> datetime:
    if isinstance(value, datetime):
        ts = value
    elif isinstance(value, str):
        if len(value) > 64:
            raise InputError("timestamp", "not an ISO 8601 date-time", index)
        try:
            ts = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise InputError("timestamp", "not an ISO 8601 date-time", index) from None
    else:
        raise InputError("timestamp", "required, an ISO 8601 date-time", index)
    return _instant(ts, "timestamp", index)


def parse_now(value: datetime | None, field: str = "now") -> datetime:
    """A `now` argument: the current time when absent, else as strict as a timestamp."""
    if value is None:
        return datetime.now(UTC)
    return _instant(value, field, None)


def parse_as_of(value: datetime | None, field: str = "asOf") -> datetime | None:
    """An `asOf` argument (recall the memory as it stood then): none when absent, else an
    aware time as strict as a timestamp."""
    return None if value is None else _instant(value, field, None)


def _too_deep(value: Any, limit: int) -> bool:
    """True past `limit` levels of nesting; iterative, so no input can exhaust the stack."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            if level >= limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((c, level + 1) for c in children)
    return False


def _metadata(value: Any, index: int, limit: int) -> dict[str, Any]:
    if value is None:
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise InputError("metadata", "not valid JSON", index) from None
        except RecursionError:
            raise InputError("metadata", f"nested deeper than {_MAX_DEPTH} levels", index) from None
    if not isinstance(value, dict):
        raise InputError("metadata", "must be a JSON object", index)
    if _too_deep(value, _MAX_DEPTH):
        raise InputError("metadata", f"nested deeper than {_MAX_DEPTH} levels", index)
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        raise InputError("metadata", "not JSON-serialisable (or NaN/Infinity)", index) from None
    if len(text) > limit:
        raise InputError("metadata", f"larger than {limit} characters", index)
    _text(text, "metadata", index, limit)  # lone surrogates, control characters
    return value


@dataclass(frozen=True)
class Page:
    """A window of a list: at most `limit` items, from `offset`. Built by `Page.of`, which
    checks both once, where a door takes them; the service and graph/ pass it on as it is."""

    limit: int
    offset: int = 0

    @staticmethod
    def of(limit: int, offset: int, most: int) -> Page:
        if not 1 <= limit <= most:
            raise InputError("limit", f"must be between 1 and {most}")
        if offset < 0:
            raise InputError("offset", "must be >= 0")
        return Page(limit, offset)


@dataclass(frozen=True)
class Validity:
    """Which of a user's Facts a list shows: the active ones, every one (`everything`), or
    those valid at `at`, superseded later or not (`everything` then does not matter).
    Built by `Validity.of`, which checks `at` as an `asOf`."""

    everything: bool = False
    at: datetime | None = None

    @staticmethod
    def of(everything: bool, at: datetime | None) -> Validity:
        return Validity(everything, parse_as_of(at))


@dataclass
class MessageItem:
    """A message as a typed door (GraphQL) hands it over, not yet checked: the wire format's
    fields under their Python names. `parse_message` checks it as it checks a JSON object.
    Not frozen: the GraphQL input type extends it (api/write_types.py)."""

    id: str
    user_id: str
    session_id: str
    role: str
    content: str
    timestamp: str
    event_type: str | None = "message"
    page: str | None = None
    metadata: Any = None


# a wire field -> its MessageItem attribute; errors name the wire field
_WIRE = {
    "id": "id", "userId": "user_id", "sessionId": "session_id", "role": "role",
    "content": "content", "timestamp": "timestamp", "eventType": "event_type", "page": "page",
    "metadata": "metadata",
}  # fmt: skip


def parse_message(item: Any, index: int, settings: Settings) -> MessageIn:
    """One message, a JSON object (camelCase keys) or a `MessageItem`, checked field by
    field."""
    if isinstance(item, MessageItem):
        fields: dict[str, Any] = {k: getattr(item, a) for k, a in _WIRE.items()}
    elif isinstance(item, dict):
        fields = item
    else:
        raise InputError("message", "must be an object", index)
    item = fields
    role = item.get("role")
    if role not in ROLES:
        raise InputError("role", f"must be one of {', '.join(ROLES)}", index)
    event_type = item.get("eventType") or "message"
    if event_type not in EVENT_TYPES:
        raise InputError("eventType", f"must be one of {', '.join(EVENT_TYPES)}", index)
    content = _text(item.get("content"), "content", index, settings.max_content_chars)
    if not content.strip():
        raise InputError("content", "must not be empty", index)
    page = item.get("page")
    return MessageIn(
        message_id=_ident(item.get("id"), "id", index),
        user_id=_ident(item.get("userId"), "userId", index),
        session_id=_ident(item.get("sessionId"), "sessionId", index),
        role=role,
        content=content,
        timestamp=_timestamp(item.get("timestamp"), index),
        event_type=event_type,
        page=None if page is None else _text(page, "page", index, 200),
        metadata=_metadata(item.get("metadata"), index, settings.max_metadata_chars),
    )


class BatchError(InputError):
    """A rejected batch: one InputError per bad item; nothing of the batch is written."""

    def __init__(self, errors: list[InputError]) -> None:
        self.errors = errors
        first = errors[0]
        super().__init__(first.field, first.reason, first.index)
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        self.args = (f"batch rejected: {self.args[0]}{more}",)


def parse_batch(items: Any, settings: Settings) -> list[MessageIn]:
    """All or nothing: any bad item rejects the batch; every error names index and field."""
    if not isinstance(items, list):
        raise InputError("messages", "must be a list")
    if not items:
        raise InputError("messages", "must not be empty")
    if len(items) > settings.max_batch:
        raise InputError("messages", f"more than {settings.max_batch} items in one batch")
    out: list[MessageIn] = []
    errors: list[InputError] = []
    for i, item in enumerate(items):
        try:
            out.append(parse_message(item, i, settings))
        except InputError as exc:
            errors.append(exc)
    if errors:
        raise BatchError(errors)
    return out


def parse_ident(value: Any, field: str) -> str:
    if not isinstance(value, str) or not _ID.fullmatch(value):
        raise InputError(field, "1-200 characters of letters, digits and ._:@/+-")
    return value


def parse_text(value: Any, field: str, limit: int) -> str:
    """A free-text argument (a recall query): a string of valid UTF-8, no control chars."""
    return _text(value, field, None, limit)


def parse_tenant(value: str) -> str:
    if not _ID.fullmatch(value):
        raise InputError("tenant", "1-200 characters of letters, digits and ._:@/+-")
    return value
