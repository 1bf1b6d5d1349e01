"""What a clause says a person is or has (extract/chat/person_attrs.py): an attribute with a value
read from the predicate's structure, so someone else's attribute is stored as theirs in any
domain, while their tastes, anecdotes and advice stay evidence only."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from spacy.language import Language

from extract.chat import person_attrs
from extract.chat.facts import extract_chat
from extract.types import Extraction, MessageRecord

TS = datetime(2026, 5, 4, 9, 30, tzinfo=UTC)


def run(en: Language, zh: Language, text: str) -> Extraction:
    return extract_chat(MessageRecord("m", "u", "s", "user", text, TS), en, zh)


@pytest.mark.parametrize(
    ("rest", "attr", "value"),
    [
        ("体重62公斤", "体重", "62公斤"),  # an attribute name and a measure
        ("鞋码是43", "鞋码", "43"),  # an attribute name and a copula
        ("血型是O型", "血型", "O型"),
        ("叫陈默", "名字", "陈默"),  # a naming verb
        ("是个兽医", "身份", "兽医"),  # a copula and what the person is
        ("是修钢琴的", "身份", "修钢琴"),  # "one who …"
        ("在厦门鼓浪屿上班呢", "上班地", "厦门鼓浪屿"),  # a place, then one verb
    ],
)
def test_an_attribute_is_read_from_the_predicate(rest: str, attr: str, value: str) -> None:
    assert person_attrs.attribute_zh(rest) == (attr, value)


@pytest.mark.parametrize(
    "rest",
    [
        "昨天去爬山了",  # an aspect marker: an event
        "是通过朋友介绍认识的",  # a preposition inside: circumstances
        "下个月8号要去厦门",  # a time before the number, a verb after it
        "特别爱吃辣",  # a taste
        "很忙",  # an adjective
        "是我的邻居",  # the relation itself
    ],
)
def test_no_attribute_without_one(rest: str) -> None:
    assert person_attrs.attribute_zh(rest) is None


@pytest.mark.parametrize(
    ("text", "subject", "slot"),
    [
        ("我姐夫身高有182厘米。", "姐夫", "姐夫的身高"),
        ("我外甥是学兽医的。", "外甥", "外甥的身份"),
        ("我干妈叫林素芬。", "干妈", "干妈的名字"),
        ("我小姨在青岛上班。", "小姨", "小姨的上班地"),
        ("My godmother is called Agnes.", "godmother", "godmother's name"),
        ("My stepfather is a locksmith.", "stepfather", "stepfather's occupation"),
        ("My aunt lives in Tromso.", "aunt", "aunt's home"),
    ],
)
def test_someone_elses_attribute_is_their_fact(
    en_nlp: Language, zh_nlp: Language, text: str, subject: str, slot: str
) -> None:
    facts = run(en_nlp, zh_nlp, text).facts
    assert [(f.subject, f.slot) for f in facts] == [(subject, slot)], facts


@pytest.mark.parametrize(
    "text",
    [
        "我姐夫特别爱钓鱼。",  # their taste
        "我姐夫上周去钓鱼了，钓了两条鲈鱼。",  # their anecdote
        "My godmother keeps telling me to try pottery.",  # their advice
    ],
)
def test_their_tastes_anecdotes_and_advice_stay_evidence(
    en_nlp: Language, zh_nlp: Language, text: str
) -> None:
    ex = run(en_nlp, zh_nlp, text)
    assert not ex.facts, ex
    assert any("someone else" in r.reason for r in ex.rejections), ex
