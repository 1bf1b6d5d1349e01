"""Implicit conflicts: a correction replaces the older slot-less Fact it contradicts."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from corrections.conflicts import Claim, Known, conflicts
from corrections.values import values

T0 = datetime(2026, 3, 1, 9, tzinfo=UTC)
NEAR = [1.0, 0.1, 0.0]
ALSO_NEAR = [1.0, 0.15, 0.05]
FAR = [0.0, 0.0, 1.0]


def known(fid: str, content: str, vec: list[float], kind: str = "fact", **kw: object) -> Known:
    args: dict[str, Any] = dict(polarity="neutral", slot=None, valid_from=T0, sources=(f"m-{fid}",))
    args.update(kw)
    return Known(fact_id=fid, content=content, kind=kind, embedding=vec, **args)


def claim(content: str, vec: list[float], correction: bool = True, **kw: object) -> Claim:
    args: dict[str, Any] = dict(kind="fact", polarity="neutral", slot=None, retracts=False)
    args.update(kw)
    return Claim(
        fact_id="new", content=content, valid_from=T0 + timedelta(days=3), embedding=vec,
        sources=("m-new",), correction=correction, **args,
    )  # fmt: skip


def test_a_cued_correction_replaces_the_near_fact_with_another_value() -> None:
    old = known("a", "The user keeps the team's tasks in Trello", NEAR)
    other = known("b", "The user walks the dog at 7", FAR)
    new = claim("The user switched to Asana for the team's tasks", ALSO_NEAR)
    assert conflicts([new], [old, other], threshold=0.8) == {"new": "a"}


def test_no_cue_and_no_slot_never_replaces() -> None:
    old = known("a", "The user keeps the team's tasks in Trello", NEAR)
    new = claim("The user also tracks bugs in Asana", ALSO_NEAR, correction=False)
    assert conflicts([new], [old], threshold=0.8) == {}


def test_the_same_value_again_is_no_conflict() -> None:
    old = known("a", "The user keeps the team's tasks in Trello", NEAR)
    new = claim("Actually the team's tasks stay in Trello", ALSO_NEAR)
    assert conflicts([new], [old], threshold=0.8) == {}


def test_a_far_fact_is_never_replaced() -> None:
    old = known("a", "The user keeps the team's tasks in Trello", FAR)
    new = claim("The user switched to Asana", NEAR)
    assert conflicts([new], [old], threshold=0.8) == {}


def test_a_slot_value_replaces_only_a_fact_naming_its_attribute() -> None:
    rate = known("a", "用户的月费大概 300 元", NEAR, kind="constraint")
    other = known("b", "用户每周三 19 点上课", ALSO_NEAR)
    new = claim("月费改成 350", NEAR, correction=False, slot="月费")
    assert conflicts([new], [other, rate], threshold=0.8) == {"new": "a"}


def test_an_older_value_on_the_same_slot_is_left_to_the_slot_write() -> None:
    same = known("a", "The user's locker is 12", NEAR, slot="locker")
    near = known("b", "The user's gym is Pure Gym Camden", ALSO_NEAR)
    new = claim("Make that locker 31", NEAR, slot="locker")
    assert conflicts([new], [same, near], threshold=0.8) == {}


def test_a_later_or_same_message_fact_is_not_replaced() -> None:
    later = known("a", "The user rides a Brompton", NEAR, valid_from=T0 + timedelta(days=9))
    same_msg = known("b", "The user rode a Dahon", NEAR, sources=("m-new",))
    new = claim("The user switched to a Tern", ALSO_NEAR)
    assert conflicts([new], [later, same_msg], threshold=0.8) == {}


def test_opposite_polarity_is_no_conflict() -> None:
    old = known("a", "The user avoids Ryanair", NEAR, polarity="avoids")
    new = claim("The user switched to easyJet", ALSO_NEAR)
    assert conflicts([new], [old], threshold=0.8) == {}


def test_the_value_similarity_ranks_near_candidates() -> None:
    topic = known("a", "The user studies Korean, not Japanese", ALSO_NEAR)
    app = known("b", "The user practises 10 minutes on Memrise", NEAR)

    def sims(text: str, others: list[str]) -> list[float]:
        return [0.9 if "Memrise" in o else 0.1 for o in others]

    new = claim("The user switched to Busuu", ALSO_NEAR)
    assert conflicts([new], [topic, app], threshold=0.8, value_similarity=sims) == {"new": "b"}


def test_values_by_shape() -> None:
    assert values("The user switched to Hilton Honors in 2026") == {
        "Hilton": "name",
        "Honors": "name",
        "2026": "num",
    }
    zh = values("用户的时薪改成 50 元")
    assert zh.get("50") == "num"
