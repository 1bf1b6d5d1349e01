"""Clause structure: coordinated predicates split, coordinated arguments and bound conjuncts
kept whole, parallel topic-comment clauses (zh/mixed) with the owner carried, verbless
negative constraints, and conditionals that are only possibilities."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import partial

import pytest
from spacy.language import Language

from extract.chat import clause_grammar as cg
from extract.chat.facts import extract_chat
from extract.types import Extraction, MessageRecord

TS = datetime(2026, 3, 9, 8, tzinfo=UTC)


@pytest.fixture
def run(said):  # type: ignore[no-untyped-def]
    return partial(said, at=TS)


def contents(ex: Extraction) -> list[str]:
    return [f.content for f in ex.facts]


def _has(ex: Extraction, *needles: str) -> bool:
    return any(all(n in c for n in needles) for c in contents(ex))


# --- coordinated predicates --------------------------------------------------------------


def test_coordinated_instructions_are_separate_facts_with_their_frame(run) -> None:  # type: ignore[no-untyped-def]
    ex = run(
        "For my newsletter: send drafts to the editors on Tuesday, "
        "and always attach the sources at the end."
    )
    assert len(ex.facts) == 2, contents(ex)
    drafts = next(f for f in ex.facts if "editors" in f.content)
    assert "Tuesday" in drafts.content and "sources" not in drafts.content
    sources = next(f for f in ex.facts if "sources" in f.content)
    assert sources.kind == "constraint"
    assert sources.content.startswith("For the user's newsletter")  # the frame scopes over both
    assert "asks to always attach the sources" in sources.content


def test_coordinated_predicates_of_the_user_share_the_subject(run) -> None:  # type: ignore[no-untyped-def]
    ex = run("I teach at a primary school and coach a chess club on Saturdays.")
    assert sorted(contents(ex)) == [
        "The user coaches a chess club on Saturdays",
        "The user teaches at a primary school",
    ]


@pytest.mark.parametrize(
    ("text", "needles"),
    [
        # one predicate with coordinated arguments: one statement
        ("Seat the kids at the front and the adults at the back.", ("front", "back")),
        # the second conjunct points back to the first: bound
        ("I bought a kayak and use it every weekend.", ("kayak", "weekend")),
    ],
)
def test_bound_coordination_stays_one_fact(run, text: str, needles: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    ex = run(text)
    assert len(ex.facts) == 1, contents(ex)
    assert _has(ex, *needles)


def test_progressive_conjunct_keeps_the_shared_auxiliary(run) -> None:  # type: ignore[no-untyped-def]
    ex = run("I'm painting the hallway and fixing the kitchen sink.")
    assert "The user is fixing the kitchen sink" in contents(ex), contents(ex)


@pytest.mark.parametrize(
    "text",
    [
        "I felt relieved and energised doing it.",  # coordinated predicative complements
        "Knitting is a calm way to unwind and stay focused.",  # inside a phrase
        "Cooking and baking together is our thing.",  # coordinated gerund subjects
    ],
)
def test_coordination_inside_a_phrase_is_not_split(run, text: str) -> None:  # type: ignore[no-untyped-def]
    assert len(run(text).facts) <= 1, contents(run(text))


def test_someone_elses_coordinated_predicate_is_not_split_off_as_the_users(run) -> None:  # type: ignore[no-untyped-def]
    ex = run("My brother lives in Oslo and works at a bank.")
    assert not any(c.startswith("The user works") for c in contents(ex)), contents(ex)
    assert all("brother" in c for c in contents(ex))


def test_coordinated_predicate_detector(en_nlp: Language) -> None:
    doc = en_nlp("Water the ferns daily, and move the cactus to the window.")
    comma = next(t.i for t in doc if t.text == ",")
    second = [t for t in doc if t.i > comma]
    verb = cg.coordinated_predicate_en(second)
    assert verb is not None and verb.lemma_ == "move"
    assert cg.shared_subject_en(verb) is None  # an instruction: no subject
    doc = en_nlp("I like tennis and squash.")
    assert cg.coordinated_predicate_en(list(doc)[3:]) is None  # "and squash": an argument


# --- parallel topic-comment clauses (zh / mixed) -------------------------------------------


def test_parallel_mixed_statements_split_and_keep_the_owner(run) -> None:  # type: ignore[no-untyped-def]
    ex = run("我们 lab 的 seminar 是每周三，report 在周五交，数据都放在 GitLab 的 ML 仓库里。")
    assert len(ex.facts) == 3, contents(ex)
    assert _has(ex, "用户等人 lab 的 seminar", "周三")
    assert _has(ex, "用户等人 lab 的 report", "周五")
    assert _has(ex, "用户等人 lab 的数据", "GitLab", "ML")


def test_parallel_statement_of_the_users_own_thing(run) -> None:  # type: ignore[no-untyped-def]
    ex = run("我的自行车是蓝色的，车锁在楼下的柜子里。")
    assert _has(ex, "用户的车锁", "柜子"), contents(ex)


def test_someone_elses_owner_is_not_carried_to_the_user(run) -> None:  # type: ignore[no-untyped-def]
    ex = run("我同事的自行车是蓝色的，车锁在楼下的柜子里。")
    # issue 37: the colleague's thing is the colleague's Fact, not the user's
    assert ex.facts and all(f.subject == "同事" for f in ex.facts), ex.facts


@pytest.mark.parametrize(
    ("text", "topic", "owner"),
    [
        ("我们 lab 的 seminar 是每周三", True, "我们 lab"),
        ("report 在周五交", True, None),
        ("我家的阳台朝南", False, None),  # adjective predicate: a description, not a statement
        ("我买了一辆自行车", False, None),  # an action clause opens with the person
        ("周三不要安排面试", False, None),  # a time word is no subject
    ],
)
def test_topic_comment_shape(text: str, topic: bool, owner: str | None) -> None:
    assert cg.topic_comment_zh(text) is topic
    assert cg.possessor_zh(text) == owner


# --- negative constraints ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ("No carpets in the nursery.", "The user wants no carpets in the nursery"),
        ("Nothing with feathers, please.", "The user wants nothing with feathers"),
        ("Absolutely no overnight layovers.", "The user wants no overnight layovers"),
        ("Soy-free snacks only.", "The user wants soy-free snacks only"),
        ("No mushrooms.", "The user wants no mushrooms"),
        ("No cream, please.", "The user wants no cream"),
    ],
)
def test_verbless_negative_constraint_is_a_fact(run, text: str, content: str) -> None:  # type: ignore[no-untyped-def]
    ex = run(text)
    assert contents(ex) == [content]
    assert (ex.facts[0].kind, ex.facts[0].polarity) == ("constraint", "avoids")


def test_negative_constraint_after_a_reason_clause(run) -> None:  # type: ignore[no-untyped-def]
    ex = run("We have two dogs, so no rentals with white carpets please.")
    neg = next(f for f in ex.facts if "carpets" in f.content)
    assert neg.content == "The user wants no rentals with white carpets"
    assert (neg.kind, neg.polarity) == ("constraint", "avoids")
    assert _has(ex, "two dogs")


def test_negative_constraint_between_two_speakers_is_addressed_to_the_other(
    en_nlp: Language, zh_nlp: Language
) -> None:
    msg = MessageRecord(
        "m1", "u", "s", "user", "No spoilers, Priya.", TS, metadata={"speaker": "u", "self": True}
    )
    assert extract_chat(msg, en_nlp, zh_nlp).facts == ()


@pytest.mark.parametrize(
    "text",
    [
        "Nothing happened at the meeting.",
        "There are no benches in the square.",
        # idioms: a bare singular or "no more" names no kind of thing to avoid
        "No problem.",
        "No rush.",
        "No more questions.",
        "None of them.",
    ],
)
def test_negative_statement_with_its_own_verb_is_no_constraint(run, text: str) -> None:  # type: ignore[no-untyped-def]
    assert not any(f.kind == "constraint" for f in run(text).facts)


# --- hypotheticals -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "如果明年公司搬到深圳了，我可能会换工作。",
        "如果以后 Rust 普及了，我说不定会重写这个 service。",
        "If it snows, I'll probably work from home.",
        "If the gym opens a second branch, I may cancel my membership.",
    ],
)
def test_possibility_conditional_is_not_a_fact(run, text: str) -> None:  # type: ignore[no-untyped-def]
    ex = run(text)
    assert ex.facts == (), contents(ex)
    assert any("hypothetical" in r.reason for r in ex.rejections)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("如果快递超过 200 元，就先发消息问我。", "200"),
        ("If a delivery costs more than 50 dollars, ask me first.", "50"),
    ],
)
def test_conditional_standing_rule_stays(run, text: str, needle: str) -> None:  # type: ignore[no-untyped-def]
    assert _has(run(text), needle)


def test_hypothetical_zh_needs_a_condition_and_a_possibility() -> None:
    assert cg.hypothetical_zh("如果下个月加薪了，我也许会换车")
    assert not cg.hypothetical_zh("如果下个月加薪了，就提醒我存钱")  # a rule: no possibility
    assert not cg.hypothetical_zh("我可能会换车")  # no condition: an uncertain plan


def test_lets_after_an_instruction_stays_the_speakers_plan(
    en_nlp: Language, zh_nlp: Language
) -> None:
    msg = MessageRecord(
        "m1",
        "u",
        "s",
        "user",
        "Drive safely and let's grab lunch on the way back!",
        TS,
        metadata={"speaker": "u", "self": True},
    )
    ex = extract_chat(msg, en_nlp, zh_nlp)
    assert any("lunch" in f.content for f in ex.facts), [r.reason for r in ex.rejections]
