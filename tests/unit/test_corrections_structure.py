"""Corrections completed by structure, on domains in none of the data files: a keep phrase
binds to the change next to it, an arrangement's subjectless parts stay one Fact, a place
changes for a place (zh and en), "from <when>" is no changed value, a return to the value
a change replaced needs no cue word, and "no pets any more" names a kind that ends."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import partial

import pytest

from corrections.carry import carry_over_en, carry_quantity
from corrections.conflicts import Claim, Known, conflicts, restorations
from corrections.cues import has_cue
from corrections.endings import ended_kinds
from extract.chat.zh_grammar import carry_over

TS = datetime(2026, 5, 6, 9, tzinfo=UTC)


@pytest.fixture
def run(said):  # type: ignore[no-untyped-def]
    return partial(said, at=TS)


def test_a_keep_phrase_first_binds_to_the_change_after_it(run) -> None:  # type: ignore[no-untyped-def]
    (fact,) = run("Same coach, but the session moves to Harbour Park from next month.").facts
    assert fact.content.startswith("Same coach") and "Harbour Park" in fact.content
    (fact,) = run("Bump the seed order to 6 trays; same supplier, same day.").facts
    assert "6 trays" in fact.content and "same supplier" in fact.content


def test_the_subjectless_parts_of_one_arrangement_stay_one_fact(run) -> None:  # type: ignore[no-untyped-def]
    facts = run("陶艺课约在每周日下午两点，在城西工作室，老师是阿梅。").facts
    assert any("城西工作室" in f.content and "周日" in f.content for f in facts)
    assert any("阿梅" in f.content for f in facts)
    # a contrast and an attribute of its own stay apart
    assert len(run("排练默认在周二，但周五不要排练。").facts) == 2


def test_change_cues_in_the_present_and_for_a_quantity() -> None:
    assert has_cue("The rehearsal moves to the east studio")
    assert has_cue("Raise the milk order to 4 bottles")
    assert not has_cue("The rehearsal is in the east studio")


def test_a_place_changes_for_a_place() -> None:
    old = "陶艺课约在每周日下午两点，在城西工作室，老师是阿梅"
    assert carry_over("上课时间不变，地点改到河滨艺术中心", old) == (
        "陶艺课约在每周日下午两点，在河滨艺术中心，老师是阿梅"
    )
    old_en = "The user's choir rehearsal is on Mondays at 6pm at the Elm Street hall, with Nadia"
    assert carry_over_en("Same time, but rehearsal moves to Harbour Park", old_en) == (
        "The user's choir rehearsal is on Mondays at 6pm at Harbour Park, with Nadia"
    )


def test_when_a_change_starts_is_no_changed_value() -> None:
    old = "The user's seed order is 4 trays of basil, picked up on the first Friday of each month"
    assert carry_quantity("Bump the seed order to 6 trays from March", old) == (
        "The user's seed order is 6 trays of basil, picked up on the first Friday of each month"
    )


def _known(
    fid: str,
    content: str,
    day: int,
    previous: str | None = None,
    kind: str = "preference",
    polarity: str = "likes",
) -> Known:
    return Known(
        fact_id=fid,
        content=content,
        kind=kind,
        polarity=polarity,
        slot=None,
        valid_from=datetime(2026, 5, day, tzinfo=UTC),
        embedding=[1.0, 0.0],
        sources=(f"m{day}",),
        previous=previous,
    )


def test_a_return_to_the_replaced_value_needs_no_cue_word() -> None:
    first = "用户的暖气打算装地暖的燃气壁挂炉"
    second = _known("b", "用户想了想还是改成空气能的吧，省电", 2, previous=first)
    back = Claim(
        fact_id="c",
        content="暖气还是装燃气壁挂炉",
        kind="fact",
        polarity="neutral",
        slot="暖气",
        valid_from=datetime(2026, 5, 3, tzinfo=UTC),
        embedding=[0.0, 1.0],  # far: the earlier value ties them, not similarity
        sources=("m3",),
        correction=False,
    )
    replaces = conflicts([back], [second], threshold=0.8)
    assert replaces == {"c": "b"}
    assert restorations([back], [second], replaces) == {"c": first}
    # a name the replaced Fact never had is no return
    other = Claim(**{**back.__dict__, "fact_id": "d", "content": "车库还是装感应灯"})
    assert conflicts([other], [second], threshold=0.8) == {}


def test_no_pets_any_more_ends_the_pet_kind() -> None:
    assert ended_kinds("狗狗上个月走了，现在家里没有宠物了", "zh") == ("pet",)
    assert ended_kinds("The user no longer has any pets", "en") == ("pet",)
    assert ended_kinds("家里没有零食了", "zh") == ()  # no kind of the user's world


def test_a_return_within_one_batch_sees_what_the_change_replaced() -> None:
    def claim(fid: str, content: str, day: int, **kw: object) -> Claim:
        base = {
            "kind": "preference",
            "polarity": "likes",
            "slot": None,
            "embedding": [1.0, 0.0],
            "correction": False,
        }
        return Claim(
            fact_id=fid,
            content=content,
            valid_from=datetime(2026, 5, day, tzinfo=UTC),
            sources=(f"m{day}",),
            **{**base, **kw},  # type: ignore[arg-type]
        )

    first = _known("a", "用户的暖气打算装地暖的燃气壁挂炉", 1)
    change = claim("b", "用户想了想还是改成空气能的吧，省电", 2, correction=True)
    back = claim("c", "暖气还是装燃气壁挂炉", 3, slot="暖气", embedding=[0.0, 1.0])
    known = [first, change.known(), back.known()]
    replaces = conflicts([change, back], known, threshold=0.8)
    assert replaces == {"b": "a", "c": "b"}
    assert restorations([change, back], known, replaces) == {"c": first.content}


def test_common_noun_values_and_a_return_that_names_no_value() -> None:
    def claim(fid: str, content: str, day: int) -> Claim:
        return Claim(
            fact_id=fid,
            content=content,
            kind="fact",
            polarity="neutral",
            slot=None,
            valid_from=datetime(2026, 5, day, tzinfo=UTC),
            embedding=[1.0, 0.0],
            sources=(f"m{day}",),
            correction=True,
        )

    first = _known(
        "a", "The user is having the hallway painted in sage green", 1, None, "fact", "neutral"
    )
    change = claim("b", "The user: for the hallway: warm grey instead", 2)
    back = claim("c", "The user asks to go back to the original colour for the hallway", 3)
    known = [first, change.known(), back.known()]
    replaces = conflicts([change, back], known, threshold=0.8)
    assert replaces == {"b": "a", "c": "b"}
    assert restorations([change, back], known, replaces) == {"c": first.content}
