"""Pipelines, entity rules and language helpers."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from spacy.language import Language

from extract.nlp import entity_refs, load_chinese, load_english
from text.lang import detect_lang, money_value, parse_cn_int
from text.timecues import time_range

TS = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)  # a Monday


def _ents(nlp: Language, text: str) -> set[tuple[str, str]]:
    return {(e.type, e.normalized) for e in entity_refs(nlp(text))}


def test_loaders_are_cached() -> None:
    assert load_english() is load_english()
    assert load_chinese() is load_chinese()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("预算 800 以内", ("MONEY", "<=800")),
        ("500-800 元", ("MONEY", "500-800")),
        ("八百元", ("MONEY", "800")),
        ("¥1200", ("MONEY", "1200")),
        ("1000块", ("MONEY", "1000")),
        ("42 码", ("SIZE", "42")),
        ("尺码 43", ("SIZE", "43")),
        ("size 42", ("SIZE", "42")),
        ("周五", ("DATE", "friday")),
        ("3月5日", ("DATE", "3月5日")),
        ("欧洲团队默认 Berlin", ("GPE", "Berlin")),
        ("我住在柏林", ("GPE", "Berlin")),
        ("想买李宁或者 HOKA", ("BRAND", "Li-Ning")),
        ("想买李宁或者 HOKA", ("BRAND", "HOKA")),
    ],
)
def test_chinese_rules(zh_nlp: Language, text: str, expected: tuple[str, str]) -> None:
    assert expected in _ents(zh_nlp, text)


def test_chinese_city_needs_a_token_start(zh_nlp: Language) -> None:
    assert ("GPE", "Chengdu") not in _ents(zh_nlp, "我完成都没问题")


def test_bare_number_is_not_money_without_context(zh_nlp: Language) -> None:
    assert not any(t == "MONEY" for t, _ in _ents(zh_nlp, "单次大概 5 公里以内"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My budget is under $800.", ("MONEY", "<=800")),
        ("Actually my budget is 1000 now.", ("MONEY", "1000")),
        ("prices between $500 and $800", ("MONEY", "500-800")),
        ("I wear size 42 shoes", ("SIZE", "42")),
        ("I love Hoka and Li-Ning", ("BRAND", "HOKA")),
        ("I moved to Toronto", ("GPE", "Toronto")),
    ],
)
def test_english_rules(en_nlp: Language, text: str, expected: tuple[str, str]) -> None:
    assert expected in _ents(en_nlp, text)


@pytest.mark.parametrize(
    ("text", "value"),
    [("八百", 800), ("一百零五", 105), ("三千五", 3500), ("两万", 20000), ("十五", 15)],
)
def test_chinese_numerals(text: str, value: int) -> None:
    assert parse_cn_int(text) == value


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("800 以内", "<=800"),
        ("500 元到 800 元", "500-800"),
        ("under $800", "<=800"),
        ("1.5k", "1500"),
        ("around 800", "~800"),
    ],
)
def test_money_value(text: str, value: str) -> None:
    assert money_value(text) == value


def test_detect_lang() -> None:
    assert detect_lang("欧洲团队默认 Berlin，美洲团队默认 Toronto") == "zh"
    assert detect_lang("I like 火锅 a lot") == "en"
    assert detect_lang("42", default="zh") == "zh"


def test_time_cues() -> None:
    start, end = time_range("昨天看的鞋", TS) or (TS, TS)
    assert (start.day, end.day) == (29, 29)
    start, end = time_range("last week", TS) or (TS, TS)
    assert (start.day, end.day) == (23, 29)
    assert time_range("周五不要安排会议", TS) is None  # a recurring weekday is not a date
