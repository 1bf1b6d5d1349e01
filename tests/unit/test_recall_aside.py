"""Memory about someone else, aside from a query about the user's own matters: a Fact or
Summary about a person the query neither names nor asks about (and the turns only such Facts
cite) weighs less, and a first-person query leaves it out of its context; their constraint,
and what is known of someone who works for the user, keep their weight."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from graph.recall import Candidates
from service.others import others_scales, speaks_of_self
from service.recall import assemble, plan
from tests.unit.test_recall import W, cands, fact, msg, near, summary


def about(
    fid: str, subject: str | None, kind: str = "fact", subject_kind: str = "person"
) -> dict[str, Any]:
    return {
        "fact": {
            "fact_id": fid,
            "kind": kind,
            "subject": subject,
            "subject_kind": "user" if subject is None else subject_kind,
            "source_message_ids": [f"m-{fid}"],
        }
    }


def world() -> Candidates:
    """The user's own Fact and Summary, the sister's (the best match), the son's allergy."""
    c = cands(
        summaries=[
            summary("mine", 0.80, ["a"]),
            summary("hers", 0.95, ["b"]) | {"about": "sister"},
        ],
        summary_hits=[{"id": "hers", "score": 6.0}],
        fact_near=[near("b", 0.95), near("a", 0.80), near("c", 0.70)],
        fact_hits=[
            {
                "id": "b",
                "score": 6.0,
                "time_start": near("b", 0)["time_start"],
                "time_end": near("b", 0)["time_end"],
            }
        ],
        messages=[msg("m-b", mv=0.94), msg("m-a", mv=0.79), msg("m-c", mv=0.69)],
    )
    details = {
        "a": about("a", None),
        "b": about("b", "sister"),
        "c": about("c", "son", "constraint"),
    }
    return replace(c, details=details)


def test_only_someone_elses_facts_and_their_turns_weigh_less() -> None:
    scales = others_scales(world(), "Which insurer do I use?", 0.3)
    assert scales == {"b": 0.3, "m-b": 0.3}
    assert others_scales(world(), "Which insurer does my sister use?", 0.3) == {}


def test_an_event_or_place_of_the_users_world_is_the_users_matter() -> None:
    c = replace(world(), details={"b": about("b", "book club", subject_kind="event")})
    assert others_scales(c, "Where do I meet on Friday?", 0.3) == {}


def test_the_routine_of_someone_who_works_for_the_user_keeps_its_weight() -> None:
    c = replace(world(), details={"b": about("b", "piano tutor")})
    assert others_scales(c, "When is the lesson?", 0.3) == {}


def test_a_first_person_query_leaves_someone_elses_memory_out() -> None:
    c = world()
    query = "Which insurer do I use?"
    p = plan(c, None, 9, W, query)
    assert [s.summary_id for _r, s in p.summaries] == ["mine"]
    facts = {f: fact(f) for f in p.fact_ids()}
    shown = [it.id for it in assemble(p, c, facts, query, W).mid_term]
    assert "b" not in shown and "m-b" not in shown, shown
    assert "a" in shown and "c" in shown, shown  # the son's allergy is a constraint


def test_a_query_naming_them_or_with_nothing_else_shows_it() -> None:
    c = world()
    query = "Which insurer does my sister use?"
    p = plan(c, None, 9, W, query)
    assert "hers" in [s.summary_id for _r, s in p.summaries]
    facts = {f: fact(f) for f in p.fact_ids()}
    assert "b" in [it.id for it in assemble(p, c, facts, query, W).mid_term]
    alone = replace(
        c,
        details={"b": about("b", "sister")},
        fact_near=c.fact_near[:1],
        messages=(),
        summaries=c.summaries[1:],
    )
    p = plan(alone, None, 9, W, "Which insurer do I use?")
    facts = {f: fact(f) for f in p.fact_ids()}
    assert "b" in [it.id for it in assemble(p, alone, facts, "Which insurer do I use?", W).mid_term]


def test_a_query_in_the_first_person() -> None:
    assert speaks_of_self("What prescriptions do I need to track?")
    assert speaks_of_self("帮我预约下一次理发")
    assert not speaks_of_self("推荐一个 smart plug")
    assert not speaks_of_self("How old is Ruth?")
