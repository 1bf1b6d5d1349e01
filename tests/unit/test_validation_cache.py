"""Validation is done once per query text and still enforces every limit (api/validation)."""

from __future__ import annotations

from typing import Any

import pytest
from graphql import parse
from graphql.validation import specified_rules
from strawberry.schema.schema import validate_document

from api.schema import build_schema
from api.validation import Validator
from core.settings import Settings

SETTINGS = Settings()
LISTS = (  # n x 100 x 100 x 100 fields in the worst case: n = 1 fits the default budget
    'query($n: Int!) { topics(userId: "u", limit: $n) { summaries(limit: 100) { '
    "sourceFacts(limit: 100) { summaries(limit: 100) { id } } } } }"
)


async def messages(schema: Any, query: str, variables: dict[str, Any] | None = None) -> list[str]:
    result = await schema.execute(query, variable_values=variables)
    return [e.message for e in result.errors or ()]


def deep(levels: int) -> str:
    inner = "id"
    for i in range(levels):
        inner = f"{'summaries' if i % 2 else 'sourceFacts'} {{ {inner} }}"
    return '{ topics(userId: "u") { ' + inner + " } }"


async def test_a_cached_text_is_still_costed_with_each_requests_variables() -> None:
    schema = build_schema(SETTINGS)
    small = await messages(schema, LISTS, {"n": 1})
    assert not any("too costly" in m for m in small)
    big = await messages(schema, LISTS, {"n": SETTINGS.max_list_size})
    assert any("too costly" in m for m in big), big
    again = await messages(schema, LISTS, {"n": 1})
    assert not any("too costly" in m for m in again)


async def test_every_limit_holds_on_the_first_and_the_repeated_request() -> None:
    schema = build_schema(SETTINGS)
    aliases = "{ " + " ".join(f"a{i}: health {{ ok }}" for i in range(31)) + " }"
    cases = {
        deep(SETTINGS.max_query_depth + 2): "exceeds maximum operation depth",
        aliases: "aliases",
        '{ topics(userId: "u", limit: ' + "9" * 200 + ") { id } }": "digits is out of range",
        "{ "
        + "health { ok } " * SETTINGS.max_query_tokens
        + "}": f"more than {SETTINGS.max_query_tokens} tokens",
        "{ nosuchfield }": "Cannot query field",
    }
    for query, expected in cases.items():
        for _ in range(2):
            found = await messages(schema, query)
            assert any(expected in m for m in found), (expected, found)


def test_one_validation_per_text_and_a_bounded_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []

    def counted(*args: Any) -> Any:
        calls.append(1)
        return validate_document(*args)

    monkeypatch.setattr("api.validation.validate_document", counted)
    schema = build_schema(SETTINGS)._schema
    rules = tuple(specified_rules)
    v = Validator(SETTINGS, maxsize=2)
    texts = ["{ health { ok } }", '{ topics(userId: "u") { id } }', "{ health { ok ok } }"]
    for _ in range(3):
        assert v.errors(schema, texts[0], parse(texts[0]), rules, {}) == []
    assert len(calls) == 1
    for t in texts:
        v.errors(schema, t, parse(t), rules, {})
    assert len(calls) == 3 and len(v.kept) == 2  # the oldest text was dropped
    v.errors(schema, None, parse(texts[0]), rules, {})  # no text to key on: validated
    assert len(calls) == 4
