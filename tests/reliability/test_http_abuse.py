"""Bad input through the HTTP API (the real app over ASGI, a real Neo4j): fuzzed batches and
recall queries, raw bodies, and abusive GraphQL documents. Never a server error; rejected
input leaves the store unchanged."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from api.app import create_app
from core.settings import Settings
from service.runtime import Runtime
from tests.integration.helpers import ADD, A, seed
from tests.reliability.figures import add
from tests.reliability.test_fuzz_inputs import (
    FIELD_VALUES,
    JSON_LEAF,
    SPECIAL,
    SURROGATES,
    VALID,
    nasty_text,
)

pytestmark = pytest.mark.reliability

HTTP_BATCHES = 300
HTTP_QUERIES = 250
MEMORY = """query($u: String!, $q: String!, $s: String, $l: Int) {
  memory(userId: $u, query: $q, sessionId: $s, limit: $l) {
    formattedContext midTermContext { id } shortTermContext { id } } }"""
OK_CODES = {
    "BAD_INPUT",
    "BAD_REQUEST",
    "GRAPHQL_VALIDATION",
    "LIMIT_EXCEEDED",
    "NOT_FOUND",
    "PAYLOAD_TOO_LARGE",
}


def collect(strategy: st.SearchStrategy[Any], n: int) -> list[Any]:
    """n values drawn by hypothesis (generation only), to replay over HTTP."""
    out: list[Any] = []

    @hsettings(
        max_examples=n,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def run(value: Any) -> None:
        out.append(value)

    run()
    return out


def jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        return False
    return True


@st.composite
def http_message(draw: st.DrawFn, n: int) -> dict[str, Any]:
    item: dict[str, Any] = dict(VALID, id=f"hz{n}")
    for field in draw(st.lists(st.sampled_from(sorted(FIELD_VALUES)), max_size=2, unique=True)):
        if draw(st.integers(0, 9)) == 0:
            item.pop(field, None)
        else:
            item[field] = draw(FIELD_VALUES[field])
    return item


@st.composite
def http_batch(draw: st.DrawFn) -> list[dict[str, Any]]:
    n = draw(st.integers(0, 10**9))
    size = draw(st.integers(1, 3))
    return [draw(http_message(n * 10 + k)) for k in range(size)]


def classify(r: httpx.Response) -> tuple[str, dict[str, Any] | None]:
    if r.status_code >= 500:
        return "server", None
    try:
        body = r.json()
    except ValueError:
        return ("rejected" if r.status_code == 400 else "server"), None
    errors = body.get("errors") or []
    codes = {e.get("extensions", {}).get("code") for e in errors}
    if codes - OK_CODES:
        return "server", body
    if errors:
        return "rejected", body
    return "answered", body


async def node_count(rt: Runtime) -> int:
    rows = await rt.memory.db.rows("MATCH (n) WHERE NOT n:_GumemTestDb RETURN count(n) AS n")
    return int(rows[0]["n"])


async def stored_ids(rt: Runtime) -> set[str]:
    rows = await rt.memory.db.rows("MATCH (m:Message) RETURN m.message_id AS id")
    return {r["id"] for r in rows}


async def test_fuzzed_batches_over_http(client: httpx.AsyncClient, runtime: Runtime) -> None:
    batches = [b for b in collect(http_batch(), HTTP_BATCHES) if jsonable(b)]
    tally: Counter[str] = Counter()
    problems: list[str] = []
    rejected_ids: set[str] = set()
    accepted_ids: set[str] = set()
    for batch in batches:
        before = await node_count(runtime)
        body = json.dumps({"query": ADD, "variables": {"m": batch}})
        r = await client.post(
            "/graphql", content=body, headers={**A, "content-type": "application/json"}
        )
        kind, data = classify(r)
        ids = {str(m.get("id")) for m in batch if isinstance(m, dict)}
        if kind == "answered" and data is not None:
            res = data["data"]["addMessages"]
            if res["errors"]:
                kind = "rejected"
                for e in res["errors"]:
                    if e["field"] is None or (e["index"] is None and e["field"] != "messages"):
                        problems.append(f"item error without field/index: {e}")
                if res["accepted"]:
                    problems.append(f"rejected batch accepted ids: {res['accepted']}")
            else:
                accepted_ids.update(res["accepted"])
        tally[kind] += 1
        if kind == "rejected":
            rejected_ids |= ids
            if await node_count(runtime) != before:
                problems.append(f"rejected batch changed the store: {str(batch)[:150]}")
        if kind == "server":
            problems.append(f"server error {r.status_code}: {r.text[:200]} for {str(batch)[:200]}")
    stored = await stored_ids(runtime)
    leaked = (rejected_ids - accepted_ids) & stored
    if leaked:
        problems.append(f"ids of rejected batches stored: {sorted(leaked)[:5]}")
    failed = await runtime.memory.db.rows(
        "MATCH (m:Message {status: 'failed'}) RETURN count(m) AS n"
    )
    add("fuzz_cases", len(batches))
    add("fuzz_cases_http", len(batches))
    add("server_errors", tally["server"])
    add("failed_messages", failed[0]["n"])
    print(
        f"\n[http fuzz addMessages] {len(batches)} batches: {dict(tally)}; "
        f"{failed[0]['n']} stored Messages failed processing"
    )
    for p in problems[:15]:
        print(f"  PROBLEM {p}")
    assert not problems, f"{len(problems)} problems, first: {problems[0]}"


QUERY_TEXT = st.one_of(
    nasty_text(),
    st.lists(SPECIAL, min_size=1, max_size=6).map(" ".join),
    st.lists(
        st.sampled_from(
            [
                '"',
                "\\",
                "OR",
                "*",
                "~",
                "AND NOT",
                ")(",
                "跑鞋",
                "shoes",
                "?",
                ":",
                "^2",
                "[a TO z]",
                "{",
                "/.*/",
                "&&",
                "||",
                "!",
                "-",
                "+",
                "scope:*",
                "*:*",
            ]
        ),
        min_size=1,
        max_size=8,
    ).map("".join),
    st.builds(lambda a, s: a + s, st.text(max_size=10), SURROGATES),
    st.sampled_from(["x" * 2000, "x" * 2001, "中" * 2001, " ", ""]),
)
USER_IDS = st.one_of(
    st.just("u-seed"), st.sampled_from(["*", "u-seed' OR 1=1", "u‐seed", ""]), nasty_text()
)


async def test_fuzzed_recall_queries_over_http(client: httpx.AsyncClient, runtime: Runtime) -> None:
    r = await client.post(
        "/graphql", json={"query": ADD, "variables": {"m": seed("zh")}}, headers=A
    )
    assert not r.json()["data"]["addMessages"]["errors"]
    before = await node_count(runtime)
    cases = collect(
        st.tuples(
            QUERY_TEXT,
            USER_IDS,
            st.one_of(st.none(), nasty_text()),
            st.one_of(st.none(), st.integers(-5, 100), JSON_LEAF),
        ),
        HTTP_QUERIES,
    )
    tally: Counter[str] = Counter()
    problems: list[str] = []
    for q, user, session, limit in cases:
        variables = {"u": user, "q": q, "s": session, "l": limit}
        body = json.dumps({"query": MEMORY, "variables": variables})  # escapes surrogates
        r = await client.post(
            "/graphql", content=body, headers={**A, "content-type": "application/json"}
        )
        kind, _ = classify(r)
        tally[kind] += 1
        if kind == "server":
            problems.append(f"{r.status_code} {r.text[:160]} for {variables!r:.160}")
    assert await node_count(runtime) == before, "a recall query changed the store"
    add("fuzz_cases", len(cases))
    add("fuzz_cases_http", len(cases))
    add("server_errors", tally["server"])
    print(f"\n[http fuzz memory] {len(cases)} queries: {dict(tally)}")
    for p in problems[:10]:
        print(f"  PROBLEM {p}")
    assert not problems, f"{len(problems)} server errors, first: {problems[0]}"


def raw_bodies() -> list[tuple[str, bytes]]:
    item = dict(VALID, id="raw1")
    deep_meta = json.dumps({"query": ADD, "variables": {"m": [dict(item, metadata="X")]}})
    return [
        ("invalid UTF-8", b'{"query": "{ health { ok } }", "x": "\xff\xfe"}'),
        ("truncated JSON", b'{"query": '),
        (
            "JSON nested 5000 deep",
            deep_meta.replace('"X"', '{"a":' * 5000 + "1" + "}" * 5000).encode(),
        ),
        (
            "metadata string nested 5000 deep",
            json.dumps(
                {"query": ADD, "variables": {"m": [dict(item, metadata="[" * 5000)]}}
            ).encode(),
        ),
        (
            "lone surrogate in metadata",
            json.dumps(
                {"query": ADD, "variables": {"m": [dict(item, metadata={"k": "\ud800"})]}}
            ).encode(),
        ),
        (
            "NaN in metadata",
            json.dumps(
                {
                    "query": ADD,
                    "variables": {"m": [dict(item, id="raw-nan", metadata={"k": float("nan")})]},
                }
            ).encode(),
        ),
        (
            "lone surrogate in recall query",
            json.dumps({"query": MEMORY, "variables": {"u": "u-seed", "q": "鞋\ud800"}}).encode(),
        ),
        (
            "10k-item batch",
            json.dumps(
                {
                    "query": ADD,
                    "variables": {"m": [dict(item, id=f"big{i}") for i in range(10_000)]},
                }
            ).encode(),
        ),
        (
            "5 MB content",
            json.dumps(
                {"query": ADD, "variables": {"m": [dict(item, id="huge", content="a" * 5_000_000)]}}
            ).encode(),
        ),
        ("variables not an object", b'{"query": "{ health { ok } }", "variables": [1]}'),
        ("query not a string", b'{"query": 5}'),
        ("empty body", b""),
    ]


async def test_raw_bodies(client: httpx.AsyncClient, runtime: Runtime) -> None:
    before = await node_count(runtime)
    problems = []
    for name, body in raw_bodies():
        try:
            r = await client.post(
                "/graphql", content=body, headers={**A, "content-type": "application/json"}
            )
        except Exception as exc:  # the app raised instead of answering: a 500 in uvicorn
            problems.append(f"{name}: app raised {type(exc).__name__}")
            continue
        kind, _ = classify(r)
        print(f"  raw {name}: HTTP {r.status_code} {kind} {r.text[:120]!r}")
        if kind == "server":
            problems.append(f"{name}: HTTP {r.status_code} {r.text[:120]}")
        if name == "NaN in metadata" and "raw-nan" in str(
            ((r.json().get("data") or {}).get("addMessages") or {}).get("accepted")
        ):
            problems.append("NaN in metadata accepted (stored; read back as invalid JSON NaN)")
    add("fuzz_cases", len(raw_bodies()))
    add("fuzz_cases_http", len(raw_bodies()))
    add("server_errors", sum(1 for p in problems if "NaN" not in p))
    add("invalid_accepted", sum(1 for p in problems if "NaN" in p))
    after = await node_count(runtime)
    nan_stored = bool(
        await runtime.memory.db.rows("MATCH (m:Message {message_id: 'raw-nan'}) RETURN m.uid AS u")
    )
    assert after == before or nan_stored, "a rejected raw body changed the store"
    assert not problems, problems


def nested_query(levels: int) -> str:
    inner = "id"
    for _ in range(levels - 1):
        inner = f"summaries {{ sourceFacts {{ {inner} }} }}"
    return '{ topics(userId: "u-seed") { ' + inner + " } }"


ABUSE = [
    ("30-level nested query", lambda: nested_query(15), "depth"),
    (
        "30-level nested unknown fields",
        lambda: "{ " + "a { " * 30 + "b" + " }" * 30 + " }",
        "depth",
    ),
    ("5000-token query", lambda: "{ " + "health { ok } " * 1700 + "}", "tokens"),
    (
        "100 aliases",
        lambda: "{ " + " ".join(f"a{i}: health {{ ok }}" for i in range(100)) + " }",
        "aliases",
    ),
    (
        "100 aliased memory calls",
        lambda: (
            "{ "
            + " ".join(
                f'm{i}: memory(userId: "u-seed", query: "鞋") {{ formattedContext }}'
                for i in range(100)
            )
            + " }"
        ),
        "aliases",
    ),
    (
        "fragment cycle",
        lambda: "query { ...A } fragment A on Query { ...B } fragment B on Query { ...A }",
        "fragment",
    ),
]


@pytest.mark.parametrize(("name", "make", "word"), ABUSE, ids=[a[0] for a in ABUSE])
async def test_abusive_graphql_rejected(
    client: httpx.AsyncClient, name: str, make: Any, word: str
) -> None:
    r = await client.post("/graphql", json={"query": make()}, headers=A)
    assert r.status_code < 500, r.text[:300]
    body = r.json()
    assert body.get("data") is None, f"{name} was executed: {str(body)[:300]}"
    codes = {e["extensions"]["code"] for e in body["errors"]}
    assert codes == {"GRAPHQL_VALIDATION"}, body["errors"][:2]
    text = " ".join(e["message"] for e in body["errors"]).lower()
    assert word in text or "cannot" in text or "exceeds" in text, text[:300]
    add("abuse_rejected", 1)


async def test_settings_limits_are_the_documented_ones(settings: Settings) -> None:
    app = create_app(settings)
    assert app is not None
    assert settings.max_query_depth == 10 and settings.max_query_tokens == 2000
