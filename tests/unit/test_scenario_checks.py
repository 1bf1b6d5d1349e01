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
    fact_has,
    facts_from_m1_at_least,
    marks_superseded,
    max_active_facts,
    no_active_fact_has,
    no_summary_has,
    recall,
    recall_as_user,
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
