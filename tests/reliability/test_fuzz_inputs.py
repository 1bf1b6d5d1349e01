"""Property-based fuzzing of the ingest edge (core.inputs.parse_batch), no database.

Every case must end in a clean outcome: the batch is accepted and every accepted value is
storable (valid ids, UTF-8-encodable text and metadata, a time zone, 1970-2100), or it is
rejected with InputError/BatchError whose errors name a known field and a valid index.
Anything else (another exception, an invalid value let through) is recorded as a
violation; the tests run every case, then fail listing the kinds of violation found.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from core.errors import InputError
from core.inputs import BatchError, parse_batch, parse_ident
from core.settings import Settings
from tests.reliability.figures import add

pytestmark = pytest.mark.reliability

SETTINGS = Settings()
FIELDS = {
    "message",
    "id",
    "userId",
    "sessionId",
    "role",
    "content",
    "timestamp",
    "eventType",
    "page",
    "metadata",
}
ID_OK = re.compile(r"[\w.:@/+\-]{1,200}")
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
VALID = {
    "id": "m1",
    "userId": "u-seed",
    "sessionId": "s-day1",
    "role": "user",
    "content": "想买一双日常慢跑鞋，不要太硬，预算 800 以内。",
    "timestamp": "2026-11-30T10:00:00+08:00",
    "eventType": "message",
    "page": "chat",
    "metadata": {},
}


def fuzz(n: int) -> hsettings:
    return hsettings(
        max_examples=n,
        database=None,
        deadline=None,
        phases=[Phase.generate],  # violations are collected, not raised: nothing to shrink
        suppress_health_check=list(HealthCheck),
    )


# --- strategies -------------------------------------------------------------------------

SURROGATES = st.integers(0xD800, 0xDFFF).map(chr)
CONTROLS = st.sampled_from([chr(c) for c in [*range(0, 32), 127]])
SPECIAL = st.sampled_from(
    [
        '"',
        "'",
        "\\",
        "OR",
        "AND NOT",
        "*",
        "~",
        ")(",
        "|",
        "\u2028",
        "\u200b",
        "\ufeff",
        "\U0001f600",
        "中",
        "ｕ",
        "ѕ",
        "%",
        "$",
        "{",
        "}",
        "\n",
        "\r\n",
        "\t",
        " ",
        "MATCH (n)",
    ]
)


@st.composite
def nasty_text(draw: st.DrawFn) -> str:
    parts = draw(
        st.lists(st.one_of(st.text(max_size=20), SURROGATES, CONTROLS, SPECIAL), max_size=8)
    )
    return "".join(parts)


HUGE = st.builds(
    lambda ch, n: ch * n,
    st.sampled_from(["a", "中", "\x01", " ", "\ud800", "😀", "ab"]),
    st.sampled_from([0, 1, 199, 200, 201, 19_999, 20_000, 20_001, 100_000]),
)
WRONG_TYPE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=3),
    st.binary(max_size=5),
    st.just(object()),
    st.just({1, 2}),
)
OFFSETS = st.integers(-24 * 60 + 1, 24 * 60 - 1).map(lambda m: timezone(timedelta(minutes=m)))
DATETIMES = st.datetimes(
    min_value=datetime(1, 1, 2),
    max_value=datetime(9999, 12, 30),
    timezones=st.one_of(st.none(), OFFSETS, st.just(UTC)),
)
TIMESTAMPS = st.one_of(
    DATETIMES,
    DATETIMES.map(lambda d: d.isoformat()),
    DATETIMES.map(lambda d: d.isoformat().replace("+00:00", "Z")),
    st.sampled_from(
        [
            "1969-12-31T23:59:59Z",
            "1970-01-01T00:00:00Z",
            "2099-12-31T23:59:59Z",
            "2100-01-01T00:00:00Z",
            "0001-01-01T00:00:00+14:00",
            "9999-12-31T23:59:59-14:00",
            "2026-11-30",
            "2026-11-30T10:00:00",
            "2026-13-01T00:00:00Z",
            "2026-11-30T10:00:00+25:00",
            "2026-11-30T10:00:00ZZ",
            "+002026-11-30T10:00:00Z",
            "now",
            "",
            " ",
            "1e10",
            "2026-11-30T10:00:00.123456789+08:00",
            "2026-W48-1T10:00Z",
            "2026-11-30T24:00:00Z",
        ]
    ),
    nasty_text(),
    WRONG_TYPE,
)
JSON_LEAF = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), nasty_text()
)
JSON_TREE = st.recursive(
    JSON_LEAF,
    lambda ch: st.one_of(st.lists(ch, max_size=4), st.dictionaries(nasty_text(), ch, max_size=4)),
    max_leaves=20,
)


def nest(kind: str, depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"a": value} if kind == "dict" else [value]
    return value


@st.composite
def deep(draw: st.DrawFn) -> Any:
    depth = draw(st.sampled_from([1, 7, 8, 9, 20, 100, 900, 1200, 5000]))
    kind = draw(st.sampled_from(["dict", "list"]))
    value = {"root": nest(kind, depth)}
    if draw(st.booleans()):
        if depth > 900:  # json.dumps itself would recurse too deep: build the text by hand
            open_, close = ('{"a":', "}") if kind == "dict" else ("[", "]")
            return '{"root":' + open_ * depth + "1" + close * depth + "}"
        return json.dumps(value)
    return value


METADATA = st.one_of(
    JSON_TREE,
    st.dictionaries(nasty_text(), JSON_TREE, max_size=5),
    deep(),
    HUGE.map(lambda s: {"big": s}),
    nasty_text(),  # as a JSON string
    st.builds(lambda k: {k: 1}, SURROGATES),
    st.builds(lambda v: {"v": v}, SURROGATES),
    WRONG_TYPE,
)
IDS = st.one_of(
    st.from_regex(ID_OK, fullmatch=True),
    nasty_text(),
    HUGE,
    st.sampled_from(
        [
            "m1\n",
            "u-seed\n",
            "a b",
            "a|b",
            "tenant-a|u-seed",
            "u-seed' OR 1=1",
            "*",
            "",
            "ｍ１",
            "u‐seed",
            "x" * 200,
            "x" * 201,
            "\u200bu",
            "..",
        ]
    ),
    WRONG_TYPE,
)
TEXTS = st.one_of(nasty_text(), HUGE, WRONG_TYPE, st.just("   "), st.just(VALID["content"]))
FIELD_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "id": IDS,
    "userId": IDS,
    "sessionId": IDS,
    "role": st.one_of(
        st.sampled_from(["user", "assistant", "system", "tool", "event", "User", "", "admin"]),
        WRONG_TYPE,
    ),
    "content": TEXTS,
    "timestamp": TIMESTAMPS,
    "eventType": st.one_of(
        st.sampled_from(
            [
                "message",
                "search",
                "filter",
                "view",
                "click",
                "favorite",
                "dwell",
                "skip",
                "tool",
                "MESSAGE",
                "",
                "drop table",
            ]
        ),
        WRONG_TYPE,
    ),
    "page": st.one_of(st.none(), TEXTS),
    "metadata": METADATA,
}


@st.composite
def message(draw: st.DrawFn) -> Any:
    if draw(st.integers(0, 40)) == 0:
        return draw(WRONG_TYPE)  # not an object at all
    item: dict[str, Any] = dict(VALID)
    for field in draw(st.lists(st.sampled_from(sorted(FIELD_VALUES)), max_size=3, unique=True)):
        if draw(st.integers(0, 9)) == 0:
            item.pop(field, None)
        else:
            item[field] = draw(FIELD_VALUES[field])
    if draw(st.integers(0, 20)) == 0:
        item[draw(st.text(max_size=10))] = draw(JSON_LEAF)  # unknown key
    return item


# --- the oracle -------------------------------------------------------------------------

TALLY: Counter[str] = Counter()
VIOLATIONS: Counter[str] = Counter()
EXAMPLES: dict[str, str] = {}


def violation(kind: str, example: Any) -> None:
    VIOLATIONS[kind] += 1
    if kind not in EXAMPLES:
        try:
            EXAMPLES[kind] = repr(example)[:200]
        except RecursionError:
            EXAMPLES[kind] = f"<{type(example).__name__} nested too deep to print>"


def storable(s: str) -> bool:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_accepted(items: list[Any], out: list[Any]) -> None:
    if len(out) != len(items):
        violation("accepted batch changed length", items)
    for m in out:
        for name in ("message_id", "user_id", "session_id"):
            value = getattr(m, name)
            if not ID_OK.fullmatch(value):
                violation(f"accepted invalid {name} (e.g. trailing newline)", value)
        if not m.content.strip() or CONTROL.search(m.content) or not storable(m.content):
            violation("accepted bad content", m.content)
        if len(m.content) > SETTINGS.max_content_chars:
            violation("accepted over-long content", len(m.content))
        ts = m.timestamp
        if ts.tzinfo is None or not datetime(1970, 1, 1, tzinfo=UTC) <= ts < datetime(
            2100, 1, 1, tzinfo=UTC
        ):
            violation("accepted bad timestamp", ts)
        if m.page is not None and (not storable(m.page) or CONTROL.search(m.page)):
            violation("accepted bad page", m.page)
        try:
            text = json.dumps(m.metadata, ensure_ascii=False, allow_nan=False)
        except ValueError:
            violation("accepted metadata with NaN/Infinity (not JSON)", m.metadata)
            continue
        except (TypeError, RecursionError):
            violation("accepted unserialisable metadata", m.metadata)
            continue
        if not storable(text):
            violation("accepted metadata with a lone surrogate (unstorable)", m.metadata)


def check(items: Any) -> None:
    TALLY["cases"] += 1
    try:
        out = parse_batch(items, SETTINGS)
    except BatchError as exc:
        TALLY["rejected"] += 1
        for e in exc.errors:
            if e.field not in FIELDS or e.index is None or not 0 <= e.index < len(items):
                violation("item error without a known field/valid index", (e.field, e.index))
            if not e.reason:
                violation("item error without a reason", e.field)
    except InputError as exc:
        TALLY["rejected"] += 1
        if exc.field != "messages":
            violation("batch error not naming 'messages'", exc.field)
    except Exception as exc:  # a server error: the API would answer INTERNAL
        TALLY["server_errors"] += 1
        violation(f"crash: {type(exc).__name__}", items)
    else:
        TALLY["accepted"] += 1
        check_accepted(items, out)


@pytest.fixture(scope="module", autouse=True)
def report() -> Any:
    yield
    add("fuzz_cases", TALLY["cases"])
    add("server_errors", TALLY["server_errors"])
    add("invalid_accepted", sum(VIOLATIONS.values()) - TALLY["server_errors"])
    print(
        f"\n[fuzz parse_batch] {TALLY['cases']} cases: {TALLY['accepted']} accepted, "
        f"{TALLY['rejected']} rejected, {TALLY['server_errors']} crashes"
    )
    for kind, n in VIOLATIONS.most_common():
        print(f"  VIOLATION {kind}: {n}  e.g. {EXAMPLES[kind]}")


def assert_clean(section: str, before: Counter[str]) -> None:
    found = {k: v - before.get(k, 0) for k, v in VIOLATIONS.items() if v > before.get(k, 0)}
    assert not found, f"{section}: {found}; examples: " + "; ".join(
        f"{k}: {EXAMPLES[k]}" for k in found
    )


# --- the tests --------------------------------------------------------------------------


def test_fuzz_single_messages() -> None:
    before = Counter(VIOLATIONS)

    @fuzz(6000)
    @given(message())
    def run(item: Any) -> None:
        check([item])

    run()
    assert_clean("single messages", before)


def test_fuzz_batches() -> None:
    before = Counter(VIOLATIONS)

    @fuzz(1500)
    @given(st.lists(message(), min_size=0, max_size=4))
    def run(items: list[Any]) -> None:
        check(items)

    run()
    assert_clean("batches", before)


def test_fuzz_batch_shapes() -> None:
    """Not lists, empty lists, 1000 vs 1001 vs 10k items, one bad item deep in a batch."""
    before = Counter(VIOLATIONS)

    @fuzz(600)
    @given(
        st.one_of(
            WRONG_TYPE,
            st.builds(
                lambda n: [dict(VALID, id=f"m{i}") for i in range(n)],
                st.sampled_from([1, 999, 1000, 1001, 10_000]),
            ),
            st.builds(
                lambda n, bad: [dict(VALID, id=f"m{i}") for i in range(n)] + [bad],
                st.integers(0, 50),
                message(),
            ),
        )
    )
    def run(items: Any) -> None:
        check(items)

    run()
    # a bad item at index n must be reported at index n
    items = [dict(VALID, id=f"m{i}") for i in range(700)] + [dict(VALID, content=5)]
    with pytest.raises(BatchError) as err:
        parse_batch(items, SETTINGS)
    assert [(e.index, e.field) for e in err.value.errors] == [(700, "content")]
    assert_clean("batch shapes", before)


def test_fuzz_identifiers_of_queries() -> None:
    """parse_ident guards userId / id arguments of every query."""
    before = Counter(VIOLATIONS)

    @fuzz(2500)
    @given(IDS)
    def run(value: Any) -> None:
        TALLY["cases"] += 1
        try:
            out = parse_ident(value, "userId")
        except InputError as exc:
            if exc.field != "userId":
                violation("ident error names another field", exc.field)
        except Exception as exc:
            TALLY["server_errors"] += 1
            violation(f"crash: {type(exc).__name__}", value)
        else:
            if not ID_OK.fullmatch(out):
                violation("parse_ident accepted an invalid id (e.g. trailing newline)", out)

    run()
    assert_clean("identifiers", before)


def test_fuzz_is_not_trivially_rejecting() -> None:
    """Sanity of the fuzzer: the unmutated message passes, and NaN is not a string."""
    assert parse_batch([dict(VALID)], SETTINGS)[0].message_id == "m1"
    assert math.isnan(float("nan"))
    assert TALLY["accepted"] > 100 and TALLY["rejected"] > 100, TALLY
