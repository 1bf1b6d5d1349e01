"""The scenario suite's check semantics (bench/scenario_checks.py) on hand-made data."""

from __future__ import annotations

from typing import Any

import pytest

from bench.scenario_checks import (
    FactView,
    Observed,
    RecallView,
    SummaryView,
    TopicView,
    current_lines,
    fact_about,
    fact_cites,
    fact_has,
    facts_from_m1_at_least,
    marks_superseded,
    max_active_facts,
    no_active_fact_has,
    no_summary_has,
    no_user_fact_has,
    recall,
    recall_as_user,
    recall_order,
    run_checks,
    superseded_fact_has,
    topic_count_at_most,
)

BUDGET_OLD = FactView("f1", "The user's budget is under 2000 dollars", "superseded", ("m1",))
BUDGET_NEW = FactView("f2", "The user's budget is now 2500", "active", ("m7",))
LAPTOP = FactView("f3", "The user wants a 14 inch laptop for Video Editing", "active", ("m1",))
ZH = FactView("f4", "用户固定每周六上午 9-11 点送达", "active", ("m1",))
FACTS = [BUDGET_OLD, BUDGET_NEW, LAPTOP, ZH]


def passed(results: list[Any]) -> list[bool]:
    return [r.passed for r in results]


def test_fact_has_needs_all_strings_in_one_active_fact() -> None:
    # bound information: "14 inch" and "video editing" in the same fact, any case
    assert passed(fact_has(FACTS, [["14 INCH", "video editing"], ["六", "9"]])) == [True, True]
    # split over two facts is not bound
    assert passed(fact_has(FACTS, [["2500", "14 inch"]])) == [False]
    # a superseded fact does not count, and the failure says where the value is
    (r,) = fact_has(FACTS, [["2000"]])
    assert not r.passed
    assert "only non-active facts" in r.found and "under 2000" in r.found


def test_no_active_fact_has_ignores_superseded_facts() -> None:
    assert passed(no_active_fact_has(FACTS, ["2000", "2500", "Dollars"])) == [True, False, True]


def test_superseded_fact_has_wants_a_non_active_fact() -> None:
    assert passed(superseded_fact_has(FACTS, ["UNDER 2000", "2500", "Berlin"])) == [
        True,
        False,
        False,
    ]
    assert "still active" in superseded_fact_has(FACTS, ["2500"])[0].found
    assert "no fact at all" in superseded_fact_has(FACTS, ["Berlin"])[0].found


def test_counts_of_facts_and_topics() -> None:
    assert passed(max_active_facts(FACTS, 3)) == [True]
    assert passed(max_active_facts(FACTS, 2)) == [False]  # the superseded one is not counted
    assert passed(facts_from_m1_at_least(FACTS, 3)) == [True]  # a superseded fact still cites m1
    assert passed(facts_from_m1_at_least(FACTS, 4)) == [False]
    topics = [TopicView("laptops", 3), TopicView("family", 1)]
    assert passed(topic_count_at_most(topics, 2)) == [True]
    (r,) = topic_count_at_most(topics, 1)
    assert not r.passed and "'family' (1 facts)" in r.found


def test_no_summary_has_sees_every_version() -> None:
    summaries = [
        SummaryView("s1", "Laptop: budget 2500, 32GB RAM", "laptops"),
        SummaryView("s0", "Laptop: budget under 2000", "laptops", "deprecated"),
    ]
    assert passed(no_summary_has(summaries, ["32gb", "2000", "sister"])) == [False, False, True]


@pytest.mark.parametrize(
    "line",
    [
        "- [f1] budget under 2000 (superseded by f2)",
        "- [f1] budget under 2000 — OUTDATED",
        "- [f1] budget under 2000, Replaced By 2500",
        "- [m1] 欧洲团队默认 Berlin（已更正为 Paris）",
        "- [m1] 欧洲团队默认 Berlin（已过时）",
        "- [m1] 欧洲团队默认 Berlin（已失效）",
    ],
)
def test_marker_lines_tolerate_must_not(line: str) -> None:
    assert marks_superseded(line)
    assert current_lines(line, "2000") == [] and current_lines(line, "berlin") == []


def test_recall_must_and_must_not() -> None:
    context = "\n".join(
        [
            "## Memory relevant to this query",
            "- [s_1] (laptops) Budget 2500, 14 inch",
            "- [m1] I want a laptop under 2000 dollars (superseded by f2)",
            "## Recent conversation",
            "- [m3] My sister loves her ThinkPad",
        ]
    )
    view = RecallView("laptops?", context, ("s_1", "m1", "m3"))
    results = recall(view, ["2500", "14 INCH", "MacBook"], ["2000", "thinkpad"], 0)
    assert passed(results) == [True, True, False, True, False]
    assert "My sister loves her ThinkPad" in results[-1].found
    assert all(r.query == 0 and r.kind == "recall" for r in results)


def test_recall_blanks_cited_ids() -> None:
    # "24" inside a hex id is not the value 24
    view = RecallView(
        "when?", "- [f_a24b] dinner at Yongfu (evidence: d-x-24:m1)", ("f_a24b", "d-x-24:m1")
    )
    (r,) = recall(view, ["24"], [], 0)
    assert not r.passed and r.found.startswith("only inside a cited id")
    assert passed(recall(view, ["yongfu"], ["24"], 0)) == [True, True]


def test_recall_as_user_has_no_tolerance() -> None:
    view = RecallView("where do I live?", "- [m1] Glasgow (superseded by f2)", ("m1",))
    (r,) = recall_as_user(view, "d-other", ["glasgow", "fintech"])
    assert not r.passed and "['glasgow']" in r.found
    assert passed(recall_as_user(view, "d-other", ["fintech"])) == [True]


def test_run_checks_counts_every_unit() -> None:
    checks = {
        "fact_has": [["2500"], ["14 inch", "video"]],
        "no_active_fact_has": ["2000"],
        "superseded_fact_has": ["2000"],
        "max_active_facts": 3,
        "facts_from_m1_at_least": 2,
        "no_summary_has": ["sister"],
        "topic_count_at_most": 1,
        "recall": [{"query": "q", "now": "2026-11-01T00:00:00Z", "must": ["2500"], "must_not": []}],
        "recall_as_user": [{"user": "d-other", "query": "q", "must_not": ["2500"]}],
    }
    seen = Observed(
        facts=FACTS,
        summaries=[SummaryView("s1", "budget 2500", "laptops")],
        topics=[TopicView("laptops", 3)],
        recalls=[RecallView("q", "- [s1] budget 2500", ("s1",))],
        as_user=[RecallView("q", "- [s9] budget 900", ("s9",))],
    )
    results = run_checks(checks, seen)
    assert len(results) == 10 and all(r.passed for r in results)
    with pytest.raises(ValueError, match="unknown check kinds"):
        run_checks({"fact_hass": []}, seen)


# the user's world (issue 37): facts with subjects, answers citing the question
NEPHEW = FactView(
    "f5", "用户的外甥阿杰今年19岁", "active", ("m2",), "外甥阿杰", "person", ("外甥", "阿杰")
)
OWN_AGE = FactView("f6", "用户今年41岁", "active", ("m3",), None)
SELF_NAMED = FactView("f7", "The user swims 40 laps on Sundays", "active", ("m4",), "User", "user")
NEIGHBOUR = FactView(
    "f8", "The user's neighbour feeds pigeons daily", "active", ("m5",), "neighbour"
)
OLD_NEIGHBOUR = FactView(
    "f9", "The user's neighbour feeds ducks", "superseded", ("m1",), "neighbour"
)
ANSWER = FactView("f10", "The user wants the gutters cleared twice a year", "active", ("m6", "m7"))
WORLD = [NEPHEW, OWN_AGE, SELF_NAMED, NEIGHBOUR, OLD_NEIGHBOUR, ANSWER]


def test_a_fact_is_the_users_without_a_subject_or_with_the_user_as_subject() -> None:
    assert OWN_AGE.about_user and SELF_NAMED.about_user and ANSWER.about_user
    assert not NEPHEW.about_user and not NEIGHBOUR.about_user
    assert NEPHEW.subject_names() == ("外甥阿杰", "外甥", "阿杰") and OWN_AGE.subject_names() == ()


def test_fact_about_matches_subject_name_or_alias_on_an_active_fact() -> None:
    specs: list[dict[str, Any]] = [
        {"subject": "阿杰", "has": ["19"]},  # an alias
        {"subject": ["nephew", "外甥"], "has": ["19", "岁"]},  # alternatives
        {"subject": "NEIGHBOUR", "has": ["pigeons"]},
        {"subject": "neighbour", "has": ["ducks"]},  # only superseded
        {"subject": "外甥", "has": ["41"]},  # the user's own age
        {"subject": "user", "has": ["41"]},  # the user is no entity of the user's world
    ]
    results = fact_about(WORLD, specs)
    assert passed(results) == [True, True, True, False, False, False]
    assert "(about the user)" in results[4].found
    (r,) = fact_about([OWN_AGE], [{"subject": "外甥", "has": ["41"]}], subjects_read=False)
    assert r.found.startswith("the API gives no Fact.subject")


def test_no_user_fact_has_ignores_other_peoples_facts() -> None:
    assert passed(no_user_fact_has(WORLD, ["pigeons", "19", "41", "LAPS"])) == [
        True,
        True,
        False,
        False,
    ]
    # superseded facts of the user do not count
    old = FactView("f11", "用户以前养鸽子", "superseded", ("m1",))
    assert passed(no_user_fact_has([old], ["鸽子"])) == [True]


def test_fact_cites_wants_every_source_on_one_active_fact() -> None:
    specs: list[dict[str, Any]] = [
        {"has": ["gutters", "twice"], "sources": ["m6", "m7"]},
        {"has": ["gutters"], "sources": ["m7"]},
        {"has": ["gutters"], "sources": ["m5", "m7"]},  # m5 is another fact's
        {"has": ["ducks"], "sources": ["m1"]},  # superseded
    ]
    results = fact_cites(WORLD, specs)
    assert passed(results) == [True, True, False, False]
    assert "cites ['m6', 'm7']" in results[2].found


def test_recall_order_wants_the_first_string_above_the_second() -> None:
    context = "- [m_19] 外甥阿杰今年19岁\n- [m_77] 阿杰的邮箱是 jie@example.net"
    view = RecallView("阿杰多大？", context, ("m_19", "m_77"))
    results = recall_order(
        view, [["19岁", "邮箱"], ["邮箱", "19岁"], ["19", "微信"], ["微信", "19"]], 2
    )
    assert passed(results) == [True, False, True, False]
    assert all(r.kind == "recall" and r.query == 2 for r in results)
    # "19" only inside a cited id is not there
    (r,) = recall_order(RecallView("q", "- [m_19] 邮箱", ("m_19",)), [["19", "邮箱"]], 0)
    assert not r.passed


def test_run_checks_runs_the_world_checks() -> None:
    checks = {
        "fact_about": [{"subject": "阿杰", "has": ["19"]}],
        "no_user_fact_has": ["pigeons"],
        "fact_cites": [{"has": ["gutters"], "sources": ["m6", "m7"]}],
        "recall": [{"query": "q", "must": ["19"], "before": [["19", "邮箱"]]}],
    }
    seen = Observed(facts=WORLD, recalls=[RecallView("q", "19 then 邮箱")])
    results = run_checks(checks, seen)
    assert [r.kind for r in results] == [
        "recall",
        "recall",
        "fact_about",
        "no_user_fact_has",
        "fact_cites",
    ]
    assert all(r.passed for r in results)


def test_the_runner_reads_a_facts_subject_when_the_api_gives_one() -> None:
    from bench.scenarios import _type_name, fact_view

    row: dict[str, Any] = {
        "id": "f1",
        "content": "The user's aunt Wen keeps koi",
        "validity": "active",
        "sourceMessageIds": ["u1:m3"],
        "subject": {"name": "aunt Wen", "kind": "person", "aliases": ["aunt", "Wen"]},
    }
    f = fact_view(row, "u1:")
    assert f.sources == ("m3",) and f.subject_names() == ("aunt Wen", "aunt", "Wen")
    assert fact_view({**row, "subject": None}, "u1:").about_user
    assert fact_view({k: v for k, v in row.items() if k != "subject"}, "u1:").about_user
    nested = {"name": None, "kind": "NON_NULL", "ofType": {"name": "Entity", "kind": "OBJECT"}}
    assert _type_name(nested) == "Entity" and _type_name(None) is None
