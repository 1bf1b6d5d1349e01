"""Any recall query text either runs (a bounded full-text query) or is refused as BAD_INPUT
naming `query`: never INTERNAL. Over GraphQL, against the real Neo4j and its analyzers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.inputs import MAX_QUERY_CHARS
from tests.integration.helpers import ADD, gql, seed

RECALL = """query($q: String!) {
  memory(userId: "u-seed", query: $q, now: "2026-12-01T10:00:00+08:00")
  { formattedContext midTermContext { id } } }"""

ZH = "我最近在准备马拉松，想换一双轻一点的碳板跑鞋，预算八百左右。"
EN = "Which running shoes did I say I liked, and what was my budget for them? "
NASTY = [
    ZH * (MAX_QUERY_CHARS // len(ZH)),  # the case: ~2,000 Chinese characters
    (ZH * 80)[:MAX_QUERY_CHARS],
    (EN * 40)[:MAX_QUERY_CHARS],
    " ".join(f"w{i}" for i in range(400))[:MAX_QUERY_CHARS],  # 400 distinct terms
    "慢" * MAX_QUERY_CHARS,  # one long CJK run
    "a" * MAX_QUERY_CHARS,  # one token longer than Lucene's 255
    "한국어 문장입니다 " * 200,
    ("ひらがなとカタカナ" * 250)[:MAX_QUERY_CHARS],
    "🏃👟💰" * 600,  # emoji only
    "🏃跑鞋👟" * 400,
    "?!.,;:'\"()[]{}<>/\\|+-&*~^" * 70,  # Lucene's operators only
    "。，！？、；：“”（）【】" * 150,  # CJK punctuation only
    '+-&&||!(){}[]^"~*?:\\/ 跑鞋 AND OR NOT TO * ? ~2 ^3',
    "AND",
    "OR NOT",
    "the a an of",  # stopwords only
    "\\",
    "*:*",
    "跑鞋\u3000预算",  # ideographic space (a Lucene query-syntax blank)
    "e\u0301" * 900,  # combining marks
    "\u200b\u200d\ufeff跑鞋",  # zero-width characters
    "١٢٣ عربي שלום Ελληνικά кириллица",
    " ".join(["跑鞋"] * 600)[:MAX_QUERY_CHARS],
    "x" * MAX_QUERY_CHARS,
    "_",  # a word character the analyzer drops
    "___ ² ① Ⅻ ‰ ™",
    "a",
    "\U00020000\U0002a6d6" * 900,  # CJK beyond the BMP
    "\u1100\u1161\u11a8" * 600,  # Hangul jamo
    "ไทยภาษาไทย" * 200,
]
TOO_LONG = ["跑" * (MAX_QUERY_CHARS + 1), "a " * (MAX_QUERY_CHARS // 2 + 1)]


@pytest.fixture
async def seeded(client: httpx.AsyncClient) -> httpx.AsyncClient:
    r = await gql(client, ADD, m=seed("zh") + seed("en"))
    assert r["status"] == 200 and not r.get("errors"), r
    return client


def _codes(r: dict[str, Any]) -> list[str]:
    return [e.get("extensions", {}).get("code") for e in r.get("errors") or []]


async def test_nasty_queries_run_or_are_refused_by_name(seeded: httpx.AsyncClient) -> None:
    failures = []
    for q in NASTY:
        r = await gql(seeded, RECALL, q=q)
        if r["status"] != 200 or r.get("errors") or r["data"]["memory"] is None:
            failures.append((q[:40], len(q), r.get("errors")))
    assert not failures, failures
    # the query finds the seed's shoe memories, its full text bounded, not dropped
    r = await gql(seeded, RECALL, q=NASTY[0])
    assert "跑鞋" in r["data"]["memory"]["formattedContext"]


async def test_a_query_over_the_limit_is_bad_input_naming_query(
    client: httpx.AsyncClient,
) -> None:
    for q in TOO_LONG:
        r = await gql(client, RECALL, q=q)
        assert _codes(r) == ["BAD_INPUT"], r
        assert r["errors"][0]["message"].startswith("query:"), r
        assert str(MAX_QUERY_CHARS) in r["errors"][0]["message"]


# any text the edge accepts: every script, symbols, emoji, Lucene syntax, any length up to
# the limit (control characters are refused earlier, as BAD_INPUT)
CHAR = st.one_of(
    st.characters(min_codepoint=0x61, max_codepoint=0x7A),  # Latin
    st.characters(min_codepoint=0x4E00, max_codepoint=0x9FFF),  # Han
    st.characters(exclude_categories=["Cc", "Cs"]),  # anything
)
TEXT = st.text(alphabet=CHAR, min_size=1, max_size=MAX_QUERY_CHARS)
# many distinct words (each a full-text term): the shape that overflowed Lucene's clauses
WORDS = st.integers(1, 700).flatmap(
    lambda n: st.lists(
        st.text(alphabet=CHAR, min_size=1, max_size=6), min_size=n, max_size=n, unique=True
    )
)
SEPARATORS = st.sampled_from([" ", "\u3000", "，", ", ", "\n", "", "🏃", " OR ", "\\"])
MANY_WORDS = st.tuples(WORDS, SEPARATORS).map(lambda t: t[1].join(t[0])[:MAX_QUERY_CHARS])
SYNTAX = '跑鞋 预算 run AND OR NOT TO * ? ~ ^2 " \\ ( ) [ ] { } : / + - && || ! 🏃 。'
LUCENE_SOUP = st.lists(
    st.sampled_from([*SYNTAX.split(" "), " ", "\u3000"]),
    min_size=1,
    max_size=700,
).map(lambda parts: "".join(parts)[:MAX_QUERY_CHARS])


@settings(
    max_examples=90,
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,  # the seeded memory is read, never changed
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
    database=None,
)
@given(q=st.one_of(TEXT, MANY_WORDS, LUCENE_SOUP))
async def test_any_query_text_is_never_internal(seeded: httpx.AsyncClient, q: str) -> None:
    r = await gql(seeded, RECALL, q=q)
    codes = _codes(r)
    assert r["status"] == 200, r
    assert "INTERNAL" not in codes, (q, r)
    if codes:  # refused by name, as bad input (a blank query)
        assert codes == ["BAD_INPUT"] and r["errors"][0]["message"].startswith("query:"), r
