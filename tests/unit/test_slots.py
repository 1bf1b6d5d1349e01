"""Slots by structure in both languages, retractions, and whose facts are the user's."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from spacy.language import Language

from extract.chat.facts import extract_chat
from extract.chat.slots import resolve_slot, retracts_zh, slot_en, slot_zh
from extract.types import Extraction, MessageRecord

TS = datetime(2026, 10, 3, 8, 0, tzinfo=UTC)


def run(en: Language, zh: Language, text: str, **meta: object) -> Extraction:
    msg = MessageRecord("m", "u", "s", "user", text, TS, metadata=dict(meta))
    return extract_chat(msg, en, zh)


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("My locker number is 318.", "number:locker", "318"),
        ("Our standup is now at 9:45.", "standup", "9:45"),
        ("My new phone plan is the 40GB one", "plan:phone", "40GB one"),
        ("The new dosage is 20 mg twice a day.", "dosage", "20 mg twice a day"),
        ("I prefer hardcover editions over ebooks.", "edition", "hardcover"),
        ("I need a quiet room with a desk.", "room", "quiet"),
        ("I relocated to Porto last spring.", "home_city", "Porto"),
        ("I'm allergic to penicillin.", "allergy:penicillin", "yes"),
        ("Make that 6 guests for the dinner.", "dinner", "6 guests"),
    ],
)
def test_english_slot_by_dependency_parse(
    en_nlp: Language, text: str, key: str, value: str
) -> None:
    slot = slot_en(list(en_nlp(text))) or None
    if slot is None:
        from extract.chat.slots import make_that_en

        slot = make_that_en(list(en_nlp(text)))
    assert slot is not None, text
    assert (slot.key, slot.value) == (key, value)


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("我的工位是 B3-07", "工位", "B3-07"),
        ("周会改到周三下午", "周会", "周三下午"),
        ("车险换成了平安", "车险", "平安"),
        ("我把宽带换成 500M 的了", "宽带", "500M"),
        ("我已经搬到了滨江区", "home_city", "滨江区"),
        ("闹钟以后改成六点半", "闹钟", "六点半"),
    ],
)
def test_chinese_slot_by_segmentation(zh_nlp: Language, text: str, key: str, value: str) -> None:
    slot = slot_zh(text)
    assert slot is not None, text
    assert (slot.key, slot.value) == (key, value)


@pytest.mark.parametrize(
    "text",
    [
        "今天天气不错",
        "我同事的生日是下周二",
        "我觉得这个是对的",
        "The sky is blue.",
        "I walked home.",
    ],
)
def test_no_slot_without_an_attribute_of_the_user(
    en_nlp: Language, zh_nlp: Language, text: str
) -> None:
    assert (slot_zh(text) if any("\u4e00" <= c <= "\u9fff" for c in text) else None) is None
    if text.isascii():
        assert slot_en(list(en_nlp(text))) is None


def test_a_later_value_on_the_same_structural_slot_keeps_the_key(
    en_nlp: Language, zh_nlp: Language
) -> None:
    (a,) = run(en_nlp, zh_nlp, "My gym membership is the basic tier.").facts
    (b,) = run(en_nlp, zh_nlp, "Actually my gym membership is now the premium tier.").facts
    assert a.slot == b.slot == "membership:gym" and a.key == b.key
    assert b.is_correction and "Actually" not in b.content
    (c,) = run(en_nlp, zh_nlp, "我的车位是 A12").facts
    (d,) = run(en_nlp, zh_nlp, "更正一下：车位换成了 C07").facts
    assert c.slot == d.slot == "车位" and d.is_correction
    assert not d.content.startswith(("一下", "更正")), d.content


def test_a_bare_attribute_names_the_known_qualified_slot() -> None:
    assert resolve_slot("membership", ["membership:gym", "budget"]) == "membership:gym"
    assert resolve_slot("membership", ["membership:gym", "membership:club"]) == "membership"
    assert resolve_slot("size:ring", ["size"]) == "size:ring"


def test_retractions_name_what_stops_being_true(en_nlp: Language, zh_nlp: Language) -> None:
    (f,) = run(en_nlp, zh_nlp, "I'm no longer on the night shift.").facts
    assert f.retracts == ("night", "shift") or f.retracts == ("shift",) or "shift" in f.retracts
    assert f.is_correction
    assert retracts_zh("我不再订晨报了") == ("晨报",)


@pytest.mark.parametrize(
    ("text", "meta", "why"),
    [
        ("她说这家店不错", {}, "someone else"),  # no antecedent for 她: not the user's
        ("If I ever buy a boat I'd name it Wave.", {}, "hypothetical"),
        ("假如明年换工作的话，我想去深圳", {}, "hypothetical"),
        ("I hope my nephew passes his driving test.", {}, "wish"),
        ("I always take the window seat.", {"speaker": "Ana"}, "another speaker"),
        ("明天天气很好", {}, "small talk"),
    ],
)
def test_not_the_users_facts_are_dropped_with_a_reason(
    en_nlp: Language, zh_nlp: Language, text: str, meta: dict[str, object], why: str
) -> None:
    result = run(en_nlp, zh_nlp, text, **meta)
    assert result.facts == (), [f.content for f in result.facts]
    assert any(why in r.reason for r in result.rejections), result.rejections


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("My uncle's email is rook@example.net.", "uncle"),
        ("My roommate Priya hates cilantro.", "roommate Priya"),
        ("我表哥的工作单位是市档案馆", "表哥"),
    ],
)
def test_a_third_party_s_statement_is_their_fact(
    en_nlp: Language, zh_nlp: Language, text: str, subject: str
) -> None:
    """Issue 37: someone else's statement is kept with its subject, never as the user's
    preference."""
    (fact,) = run(en_nlp, zh_nlp, text).facts
    assert fact.subject == subject and fact.subject_kind == "person", fact
    assert fact.kind == "fact" and fact.polarity == "neutral", fact


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("My uncle swears by his old Nokia.", "uncle"),
        ("我表哥喜欢越野车", "表哥"),
    ],
)
def test_a_third_party_s_taste_is_evidence_only(
    en_nlp: Language, zh_nlp: Language, text: str, name: str
) -> None:
    """Issue 37: someone else's taste is neither the user's Fact nor theirs; the rejection
    names them, so recall can still weigh the turn."""
    result = run(en_nlp, zh_nlp, text)
    assert result.facts == (), result.facts
    (why,) = [r.reason for r in result.rejections]
    assert why.startswith(f"about someone else ({name})"), why


def test_the_users_own_clause_survives_next_to_a_third_party(
    en_nlp: Language, zh_nlp: Language
) -> None:
    result = run(en_nlp, zh_nlp, "My brother is diabetic but I love desserts.")
    mine = [f.content for f in result.facts if f.subject is None]
    assert mine == ["The user loves desserts"]
    (his,) = [f for f in result.facts if f.subject is not None]
    assert his.subject == "brother" and his.content == "The user's brother is diabetic"
    assert his.kind == "constraint", his
    # next to someone else's taste (evidence only), the user's own clause is still kept
    result = run(en_nlp, zh_nlp, "My brother loves his Vespa but I dislike scooters.")
    assert [f.content for f in result.facts] == ["The user dislikes scooters"]
    assert [r.reason.startswith("about someone else (brother)") for r in result.rejections] == [
        True
    ], result.rejections
    (own,) = run(en_nlp, zh_nlp, "I take the bus to work.", speaker="Ana", self=True).facts
    assert own.content.startswith("Ana")
