"""Statements in the user's own turn kept by structure, request wrappers, "let's",
the change cue, bound names and relative days resolved in fact content."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import partial

import pytest

from extract.types import Extraction
from text.timecues import resolve_relative_days

TS = datetime(2026, 5, 6, 9, tzinfo=UTC)  # a Wednesday


@pytest.fixture
def run(said):  # type: ignore[no-untyped-def]
    return partial(said, at=TS)


def contents(ex: Extraction) -> list[str]:
    return [f.content for f in ex.facts]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("Could you note this down: I've reserved a kayak at Lakeside Rentals.", "Lakeside"),
        ("Locker code 4471.", "4471"),
        ("The dog walker must have public liability insurance.", "insurance"),
        ("停车位只要地下的。", "地下"),
        ("麻烦记一下：周日上午我在湖边租了两条皮划艇。", "皮划艇"),
        ("课程费用大概 800 元。", "800"),
    ],
)
def test_the_users_own_statement_without_i_is_kept(run, text: str, needle: str) -> None:  # type: ignore[no-untyped-def]
    assert any(needle in c for c in contents(run(text))), run(text)


@pytest.mark.parametrize(
    "text",
    ["Nice weather today.", "Can you help me find a hotel?", "今天天气不错", "你能帮我查一下吗？"],
)
def test_small_talk_and_requests_stay_out(run, text: str) -> None:  # type: ignore[no-untyped-def]
    assert run(text).facts == ()


def test_lets_is_the_users_plan_and_carries_the_cue(run) -> None:  # type: ignore[no-untyped-def]
    (fact,) = run("Let's go with the Dolomites instead.").facts
    assert fact.content == "The user wants to go with the Dolomites instead"
    assert fact.cue and fact.is_correction


def test_a_plain_statement_has_no_cue(run) -> None:  # type: ignore[no-untyped-def]
    (fact,) = run("I keep my bike in the hallway.").facts
    assert not fact.cue


def test_the_attribute_of_the_previous_clause_is_carried(run) -> None:  # type: ignore[no-untyped-def]
    facts = run("上课地点变了，换成静安的新校区。").facts
    assert any(f.content.startswith("上课地点") and "静安" in f.content for f in facts), facts
    assert all(f.cue for f in facts if "静安" in f.content)


def test_they_bound_to_the_named_organisation(run) -> None:  # type: ignore[no-untyped-def]
    ex = run("I moved my savings to Barclays. They gave me a 4% rate.")
    assert any("Barclays" in c and "4%" in c for c in contents(ex)), ex


@pytest.mark.parametrize(
    ("text", "zh", "out"),
    [
        ("Yesterday the user repainted the fence", False, "Yesterday (2026-05-05) the user"),
        ("The user hurt a knee last Friday", False, "last Friday (2026-05-01)"),
        ("用户前天去了牙医", True, "前天（5月4日）"),
        ("上周五用户搬了家", True, "上周五（5月1日）"),
        ("The user runs every day", False, "The user runs every day"),
    ],
)
def test_relative_days_resolved_from_the_message_time(text: str, zh: bool, out: str) -> None:
    assert out in resolve_relative_days(text, TS, zh)


def test_a_fact_keeps_its_date_when_read_later(run) -> None:  # type: ignore[no-untyped-def]
    assert any("5月5日" in c for c in contents(run("昨天我在河边跑了 10 公里。")))
