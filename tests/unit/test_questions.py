"""A query of several questions is recalled as several queries (service/questions.py);
the entity a description points at (service/ranking._hop) and whom a candidate is about."""

from __future__ import annotations

import pytest

from service.others import subject_of, subjects
from service.questions import merged_candidates, merged_plan, questions
from service.ranking import Weights, plan
from tests.unit.test_recall import cands, msg


@pytest.mark.parametrize(
    ("query", "parts"),
    [
        (
            "我外婆住在哪个小区？另外，陶艺课几点开始？",
            ["我外婆住在哪个小区？", "另外，陶艺课几点开始？"],
        ),
        (
            "Which gym does Priya go to? And when is the regatta?",
            ["Which gym does Priya go to?", "And when is the regatta?"],
        ),
        ("我外婆住在哪个小区？", ["我外婆住在哪个小区？"]),  # one question
        # a question inside chat: the other sentences say which question counts
        (
            "今天好累。不知道明天会不会下雨？算了，我想问的是陶艺课几点开始？",
            ["今天好累。不知道明天会不会下雨？算了，我想问的是陶艺课几点开始？"],
        ),
        (
            "I moved last week. Where is the nearest pharmacy? Is it open late?",
            ["I moved last week. Where is the nearest pharmacy? Is it open late?"],
        ),
        ("Where is it? ok", ["Where is it? ok"]),  # a tail that is no question
        ("？？好吗？", ["？？好吗？"]),  # parts without words are no questions
    ],
)
def test_a_query_of_questions_alone_is_split(query: str, parts: list[str]) -> None:
    assert questions(query) == parts


def test_each_question_s_best_evidence_leads_together() -> None:
    """Two questions: one matches its turns far better than the other; merged, the best turn
    of each comes first, before the second-best of either."""
    w = Weights(session=0.0)
    first = cands(
        messages=[msg("a1", mv=0.9), msg("a2", mv=0.8), msg("b1", mv=0.1)],
        message_hits=[msg("a1", score=9.0), msg("a2", score=8.0)],
    )
    second = cands(messages=[msg("b1", mv=0.7), msg("b2", mv=0.6), msg("a1", mv=0.1)])
    plans = [plan(first, None, 10, w), plan(second, None, 10, w)]
    merged = merged_plan(plans)
    assert [r.id for r in merged.evidence][:2] in (["a1", "b1"], ["b1", "a1"])
    assert {r.id for r in merged.evidence} == {"a1", "a2", "b1", "b2"}
    assert merged.evidence[0].score == pytest.approx(1.0)
    c = merged_candidates([first, second])
    ids = [m.message_id for m in c.messages]
    assert sorted(ids) == ["a1", "a2", "b1", "b2"] and len(ids) == len(set(ids))


def _about(mid: str, who: str, mv: float) -> dict[str, object]:
    return msg(mid, mv=mv, rejected=True, rejected_reason=f"about someone else ({who}): not stored")


def test_a_described_person_s_other_turns_come_forward() -> None:
    """ "那个在深圳工作的人，学历是什么？" names no one: the best evidence is about the boss, so
    the boss's other turns rank in one more list, ahead of the user's own matter."""
    w = Weights(session=0.0)
    c = cands(
        messages=[
            _about("t1", "上司", 0.9),
            msg("t3", mv=0.5),  # the user's own schooling
            _about("t2", "上司个子", 0.3),  # the boss again, as a merged mention names him
            _about("t4", "表姐", 0.2),
        ],
        message_hits=[{**_about("t1", "上司", 0.9), "score": 5.0}],  # its words match too
    )
    ranked = [r.id for r in plan(c, None, 10, w, "那个在深圳工作的人，学历是什么？").evidence]
    assert ranked[:3] == ["t1", "t2", "t3"], ranked
    counted = [r.id for r in plan(c, None, 10, w, "有几个人在深圳工作？").evidence]
    assert counted[:3] == ["t1", "t3", "t2"], "a count asks about a set: no hop"


def test_one_candidate_s_subject_is_the_one_all_of_them_give() -> None:
    c = cands(messages=[_about("t1", "上司", 0.9), msg("t3", mv=0.5), _about("t2", "表姐", 0.2)])
    every = subjects(c)
    assert every == {"t1": "上司", "t2": "表姐"}
    assert {i: subject_of(c, i) for i in ("t1", "t2", "t3")} == {**every, "t3": None}
