"""The full-text query of recall is bounded: a long query's text is cut, a usual one kept."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from graph.recall import MAX_TERMS, bounded_text, lucene_query

ZH = "我最近在准备马拉松，想换一双轻一点的碳板跑鞋，预算八百左右。"


def _wide(text: str) -> int:
    return sum(1 for c in text if c >= "\u2e80" or "\u1100" <= c <= "\u11ff")


def test_a_usual_query_is_unchanged() -> None:
    for q in ("any more shoe picks from yesterday?", ZH, "跑鞋 AND (碳板) OR \\ *:*"):
        assert bounded_text(q) == q
    assert lucene_query(ZH * 66, "s") == lucene_query(bounded_text(ZH * 66), "s")


def test_a_long_chinese_query_keeps_its_first_characters() -> None:
    q = ZH * 66  # ~2,000 characters, the case
    cut = bounded_text(q)
    assert q.startswith(cut) and 200 < len(cut) < 300
    assert _wide(cut) <= MAX_TERMS


def test_one_long_run_is_cut_inside_not_dropped() -> None:
    assert bounded_text("慢" * 2000) == "慢" * MAX_TERMS
    assert len(bounded_text("a" * 2000)) == 2000  # 8 tokens of 255 characters at most
    assert len(bounded_text("a" * 300_000)) == MAX_TERMS * 255 - 1


def test_distinct_latin_words_are_cut_at_the_budget() -> None:
    words = [f"w{i}" for i in range(1000)]
    assert bounded_text(" ".join(words)).split() == words[:MAX_TERMS]


def test_symbols_and_emoji_count_one_each() -> None:
    assert bounded_text("🏃" * 1000) == "🏃" * MAX_TERMS
    assert bounded_text("?" * 1000) == "?" * MAX_TERMS


def _least_tokens(text: str) -> int:
    """At least one token per wide character or symbol and per word of another script."""
    narrow_words = re.findall(r"\w+", re.sub(r"[\u1100-\u11ff\u2e80-\U0010ffff]", " ", text))
    symbols = re.findall(r"[^\w\s\u1100-\u11ff\u2e80-\U0010ffff]", text)
    return _wide(text) + len(narrow_words) + len(symbols)


@given(st.text(max_size=3000) | st.text("ab 跑鞋🏃?", max_size=3000))
def test_the_cut_is_a_prefix_within_the_budget(text: str) -> None:
    cut = bounded_text(text)
    assert text.startswith(cut)
    assert bounded_text(cut) == cut
    assert _least_tokens(cut) <= MAX_TERMS
    if _least_tokens(text) <= 20 and len(text) <= 255:
        assert cut == text  # a short query is never cut
