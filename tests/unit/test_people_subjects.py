"""Whose Fact a turn states, by structure: a role with a Latin word or a name inside it, a
person of the user's group ("我们<X>的<Y>" + a naming verb), an apposition ("N, my <P>,"),
"my <P> is N" with the pronoun after it, a condition named in the other language, a
nominal predicate that carries the subject of the clause before, and a pronoun whose
antecedent is in the user's turn before. Domains in none of the data files."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import partial

import pytest
from spacy.language import Language

from extract.chat.facts import extract_chat
from extract.types import Extraction, FactDraft, MessageRecord

TS = datetime(2026, 5, 6, 9, tzinfo=UTC)


@pytest.fixture
def run(said):  # type: ignore[no-untyped-def]
    return partial(said, at=TS)


def having(ex: Extraction, needle: str) -> FactDraft:
    found = [f for f in ex.facts if needle in f.content]
    assert found, (needle, [f.content for f in ex.facts], [r.reason for r in ex.rejections])
    return found[0]


def test_a_role_with_latin_words_keeps_its_name_and_the_age_after_it(run) -> None:  # type: ignore[no-untyped-def]
    ex = run("我的 yoga 教练 Priya 是印度人，今年 41 岁。")
    age = having(ex, "41")
    assert age.subject == "yoga 教练 Priya" and age.subject_kind == "person"
    assert age.slot is not None and age.slot.endswith("年龄")
    assert not age.content.startswith("用户今年")  # never the user's own age


def test_a_person_of_the_users_group_named_by_a_surname(run) -> None:  # type: ignore[no-untyped-def]
    ex = run("我们车队的队长姓钟，是退休工程师。")
    fact = having(ex, "工程师")
    assert fact.subject == "车队的队长" and fact.subject_kind == "person"
    ex = run("我们乐队的鼓手叫阿杰，是个程序员。")
    job = having(ex, "程序员")
    assert job.subject == "乐队的鼓手"
    assert not any(f.subject is None and "程序员" in f.content for f in ex.facts)


def test_an_apposition_names_the_relation(run) -> None:  # type: ignore[no-untyped-def]
    fact = having(run("Noor, my niece, is lactose intolerant."), "lactose")
    assert fact.subject == "niece" and "Noor" in fact.subject_aliases
    assert fact.kind == "constraint"


def test_my_relation_is_a_name_then_the_pronoun_gives_an_age(run) -> None:  # type: ignore[no-untyped-def]
    ex = run("My landlord is Pieter Visser; he's 67 and lives in Utrecht.")
    name = having(ex, "Pieter Visser")
    assert name.subject == "landlord" and name.slot == "landlord's name"
    age = having(ex, "67")
    assert age.subject == "landlord" and age.slot == "landlord's age"
    assert "is 67" in age.content  # "he's" spelled out after the name, no "Visser's 67"


def test_a_nationality_is_not_a_name(run) -> None:  # type: ignore[no-untyped-def]
    fact = having(run("我的语文老师是荷兰人。"), "荷兰人")
    assert fact.subject == "语文老师" and "荷兰人" not in fact.subject_aliases


def test_a_condition_named_in_english_inside_chinese(run) -> None:  # type: ignore[no-untyped-def]
    fact = having(run("我外婆有 asthma，所以家里不能养猫。"), "asthma")
    assert fact.subject == "外婆" and fact.kind == "constraint"


def test_a_pronoun_takes_whom_the_users_turn_before_named(run) -> None:  # type: ignore[no-untyped-def]
    before = "My neighbour Tomas looks after our cat when we travel."
    fact = having(run("He is allergic to dogs though.", said_before=before), "allergic")
    assert fact.subject == "neighbour Tomas"
    ex = run("她对芒果过敏。", said_before="我女儿小满今年上三年级。")
    assert having(ex, "芒果").subject == "女儿小满"
    # no antecedent before: nothing of "he" is filed as the user's
    alone = run("He is allergic to dogs though.")
    assert not any("allergic" in f.content and f.subject is None for f in alone.facts)


def test_a_choice_keeps_what_the_question_was_about(en_nlp: Language, zh_nlp: Language) -> None:
    msg = MessageRecord(
        "m2", "u", "s", "user", "遮光的就行，睡得好。", TS, lang="zh",
        asked="好的。卧室窗帘您要遮光的还是透光的？", asked_id="a1",
    )  # fmt: skip
    (fact,) = extract_chat(msg, en_nlp, zh_nlp).facts
    assert "窗帘" in fact.content and "遮光" in fact.content


def test_the_familys_child_is_the_users_and_the_parents_wish_stays_theirs(run) -> None:  # type: ignore[no-untyped-def]
    ex = run("我们家女儿下个月开始学游泳，只考虑离家 2 公里以内的泳馆。")
    lesson = having(ex, "游泳")
    assert lesson.subject == "女儿" and lesson.content.startswith("用户的女儿")
    wish = having(ex, "2 公里")
    assert wish.subject is None  # the speaker's consideration, not the daughter's
