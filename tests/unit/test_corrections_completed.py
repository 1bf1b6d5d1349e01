"""Corrections, completed (issue 37, item 4): going back to an earlier value, a partial
change that keeps the rest, an updated quantity inside a multi-attribute Fact, and a life
change that retires the Facts it ends. Sentences of domains of their own."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from corrections.carry import carry_over_en, carry_quantity
from corrections.conflicts import Claim, Known, changed_facts, conflicts, restorations
from corrections.cues import returns
from corrections.endings import ended_things
from extract.types import FactDraft, Lang
from graph.fact_writes import NewFact
from service.drafts import carried

T0 = datetime(2026, 4, 1, 9, tzinfo=UTC)
NEAR = [1.0, 0.1, 0.0]
ALSO_NEAR = [1.0, 0.15, 0.05]


def known(fid: str, content: str, days: int = 0, **kw: Any) -> Known:
    args: dict[str, Any] = dict(polarity="neutral", slot=None, embedding=NEAR)
    args.update(kw)
    return Known(
        fact_id=fid, content=content, kind="fact", valid_from=T0 + timedelta(days=days),
        sources=(f"m-{fid}",), **args,
    )  # fmt: skip


def claim(content: str, days: int = 9, **kw: Any) -> Claim:
    args: dict[str, Any] = dict(polarity="neutral", slot=None, correction=True)
    args.update(kw)
    return Claim(
        fact_id="new", content=content, kind="fact", valid_from=T0 + timedelta(days=days),
        embedding=ALSO_NEAR, sources=("m-new",), **args,
    )  # fmt: skip


# --- 1. back to an earlier value -------------------------------------------------------------


def test_return_cues() -> None:
    for text in (
        "The choir rehearsal went back to Tuesdays",
        "Let's go back to the Riverside gym",
        "Actually, change it back",
        "The user's standup is at 9 as before",
        "周会还是改回周一上午吧",
        "还是按原来的时间",
    ):
        assert returns(text), text
    assert not returns("The user came back from Lisbon yesterday full of ideas")


def test_back_to_a_replaces_b_and_is_worded_as_a() -> None:
    a = "The user's choir rehearsal is on Tuesdays"
    b = known("b", "The user's choir rehearsal moved to Thursdays", 3, previous=a)
    new = claim("The choir rehearsal went back to Tuesdays")
    replaces = conflicts([new], [b], threshold=0.8)
    assert replaces == {"new": "b"}
    assert restorations([new], [b], replaces) == {"new": a}


def test_actually_a_again_restores_a() -> None:
    a = "The user's choir rehearsal is on Tuesdays"
    b = known("b", "The user's choir rehearsal moved to Thursdays", 3, previous=a)
    new = claim("Actually, choir is on Tuesdays again")
    replaces = conflicts([new], [b], threshold=0.8)
    assert replaces == {"new": "b"}
    assert restorations([new], [b], replaces) == {"new": a}


def test_back_to_another_value_keeps_its_own_wording() -> None:
    a = "The user's choir rehearsal is on Tuesdays"
    b = known("b", "The user's choir rehearsal moved to Thursdays", 3, previous=a)
    new = claim("The choir rehearsal went back to Saturdays")
    assert restorations([new], [b], {"new": "b"}) == {}


def test_a_return_without_a_value_restores_the_replaced_one() -> None:
    a = "用户的周会在周一上午"
    b = known("b", "周会改到周三下午", 3, slot="周会", previous=a)
    new = claim("周会还是改回去吧", slot="周会")
    # on one slot the write supersedes B; the wording comes from what B replaced
    assert restorations([new], [b], {}) == {"new": a}


def test_no_earlier_value_no_restoration() -> None:
    b = known("b", "The user's choir rehearsal moved to Thursdays", 3)
    new = claim("The choir rehearsal went back to Tuesdays")
    assert restorations([new], [b], {"new": "b"}) == {}


# --- 2. a change to one part that keeps the rest --------------------------------------------


def test_english_change_of_one_part_keeps_the_rest() -> None:
    old = "The user booked a table at the Harbour Grill for Friday at 8pm"
    assert carry_over_en("Same time, but at the Lotus Garden instead", old) == (
        "The user booked a table at the Lotus Garden for Friday at 8pm"
    )
    assert carry_over_en("Same place, but at 7pm", old) == (
        "The user booked a table at the Harbour Grill for Friday at 7pm"
    )
    assert carry_over_en("Keep the time, but make it for Saturday", old) == (
        "The user booked a table at the Harbour Grill for Saturday at 8pm"
    )


def test_no_keep_phrase_or_no_clear_counterpart_carries_nothing() -> None:
    old = "The user booked a table at the Harbour Grill for Friday at 8pm"
    assert carry_over_en("The user moved the dinner to the Lotus Garden", old) is None
    assert carry_over_en("Same day, but with Dana", old) is None  # nothing "with" before


def test_a_partial_change_is_carried_into_what_it_replaces() -> None:
    old = "The user booked a table at the Harbour Grill for Friday at 8pm"
    draft = FactDraft(
        content="Same time, but at the Lotus Garden instead",
        kind="fact",
        source_message_ids=("m2",),
        time_start=T0,
        time_end=T0,
        lang="en",
    )
    new = [NewFact("f2", draft, None, (draft,))]
    out = carried(new, {"f2": "f1"}, {"f1": old})
    assert out[0].draft.content == "The user booked a table at the Lotus Garden for Friday at 8pm"
    assert out[0].fact_id == "f2" and out[0].draft.source_message_ids == ("m2",)


# --- 3. an updated quantity inside a Fact of several attributes ------------------------------


def test_an_updated_quantity_carries_the_other_attributes() -> None:
    old = "The user wants a secondhand kayak, 3 metres long, for under 600 dollars"
    assert carry_quantity("The user's kayak budget is now 750 dollars", old) == (
        "The user wants a secondhand kayak, 3 metres long, for under 750 dollars"
    )
    old_zh = "用户想报一个周末的油画班，每次两小时，学费不超过三千"
    assert carry_quantity("油画班学费预算改成四千", old_zh, "四千") == (
        "用户想报一个周末的油画班，每次两小时，学费不超过四千"
    )


def test_a_single_attribute_fact_needs_no_carrying() -> None:
    assert (
        carry_quantity("The user's budget is now 750 dollars", "The user's budget is 600 dollars")
        is None
    )
    # two quantities of one unit and nothing tying the new one to either: no guess
    old = "The user pays 40 dollars for yoga and 60 dollars for swimming"
    assert carry_quantity("The user now pays 50 dollars", old) is None


def test_a_change_of_more_than_a_quantity_carries_nothing() -> None:
    old = "用户现在住在杭州滨江，租的一居室，月租 3800"
    # a move: the slot value is a place, whatever count it names
    assert carry_quantity("用户搬到了西湖边的两居室", old, "西湖边的两居室") is None
    assert carry_quantity("用户搬到了西湖边的两居室", old) is None  # a name the old lacks
    assert (
        carry_quantity("月租改成 4200", old, "4200")
        == "用户现在住在杭州滨江，租的一居室，月租 4200"
    )


def test_the_slot_s_older_fact_is_the_one_a_quantity_changes() -> None:
    a = known("a", "The user wants a kayak, 3 metres long, under 600 dollars", slot="budget")
    new = claim("The user's kayak budget is now 750 dollars", slot="budget", correction=False)
    assert changed_facts([new], [a], {}) == {"new": "a"}


# --- 4. a life change ends the Facts of the thing it ends ------------------------------------


@pytest.mark.parametrize(
    ("content", "lang", "things"),
    [
        ("The user's parrot Kiwi died last spring", "en", ("parrot", "Kiwi")),
        ("The user sold the user's motorbike last month", "en", ("motorbike",)),
        ("The user and others gave away the old trampoline", "en", ("trampoline",)),
        ("The user moved out of the flat on Cedar Lane", "en", ("flat",)),
        ("用户家的鹦鹉去世了", "zh", ("鹦鹉",)),
        ("用户把摩托车卖了", "zh", ("摩托车",)),
        ("用户卖了那架钢琴", "zh", ("钢琴",)),
    ],
)
def test_an_ending_names_the_thing_it_ends(
    content: str, lang: Lang, things: tuple[str, ...]
) -> None:
    assert ended_things(content, lang) == things


@pytest.mark.parametrize(
    ("content", "lang"),
    [
        ("The user's neighbour sold his motorbike", "en"),  # someone else's thing
        ("Priya's hamster died last night", "en"),
        ("The user sold Priya's motorbike for her", "en"),
        ("The user sold 12 prints at the craft fair", "en"),  # a sale, not a loss
        ("The concert tickets sold out in minutes", "en"),
        ("The user rides the motorbike to work", "en"),
        ("用户表哥的摩托车卖了", "zh"),
        ("用户每天骑摩托车上班", "zh"),
    ],
)
def test_no_ending_of_the_user_s_thing(content: str, lang: Lang) -> None:
    assert ended_things(content, lang) == ()
