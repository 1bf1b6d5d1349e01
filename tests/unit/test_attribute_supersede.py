"""Supersede by attribute: a later statement giving another value to the attribute an
older Fact states replaces that Fact and only it; third parties and suppositions are not
the user's facts. Examples are our own, in domains of their own."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

import pytest

from corrections.conflicts import Claim, Known, conflicts
from corrections.cues import is_weak
from corrections.values import attribute

T0 = datetime(2026, 4, 1, 8, tzinfo=UTC)
NEAR = [1.0, 0.1, 0.0]
ALSO_NEAR = [1.0, 0.12, 0.03]


def known(fid: str, content: str, **kw: object) -> Known:
    args: dict[str, Any] = dict(kind="fact", polarity="neutral", slot=None, embedding=NEAR)
    args.update(kw)
    return Known(fact_id=fid, content=content, valid_from=T0, sources=(f"m-{fid}",), **args)


def claim(content: str, cue: bool = False, **kw: object) -> Claim:
    args: dict[str, Any] = dict(kind="fact", polarity="neutral", slot=None, retracts=False)
    args.update(kw)
    return Claim(
        fact_id="new", content=content, valid_from=T0 + timedelta(days=20), embedding=ALSO_NEAR,
        sources=("m-new",), correction=cue, **args,
    )  # fmt: skip


def test_a_present_statement_replaces_the_fact_sharing_its_head_noun() -> None:
    vet = known("vet", "用户的猫一直在安心宠物医院看病")
    allergy = known("allergy", "用户对青霉素过敏", kind="constraint", polarity="avoids")
    food = known("food", "用户的猫只吃三文鱼味的猫粮")
    new = claim("用户现在带猫去康宁宠物医院")
    assert is_weak(new.content)
    assert conflicts([new], [allergy, food, vet], threshold=0.8) == {"new": "vet"}


def test_a_present_statement_in_english_ties_by_a_shared_stem() -> None:
    bins = known("bins", "The user's bins are emptied every Tuesday")
    sofa = known("sofa", "The user's sofa is from Habitat")
    new = claim("These days the bins get emptied on Fridays")
    assert conflicts([new], [sofa, bins], threshold=0.8) == {"new": "bins"}


def test_a_present_statement_ties_by_the_role_of_its_values() -> None:
    repo = known("repo", "The user's code is hosted on Bitbucket in a private workspace")
    editor = known("editor", "The user writes code in Neovim")
    new = claim("Nowadays everything sits on Codeberg")
    assert conflicts([new], [editor, repo], threshold=0.8) == {"new": "repo"}


def test_a_present_statement_without_an_attribute_tie_replaces_nothing() -> None:
    pets = known("pets", "用户家里养了两只猫")
    new = claim("用户现在每天走 8000 步")
    assert conflicts([new], [pets], threshold=0.8) == {}
    # numbers of other things never make a weak change: "每 10 天" is not "两盆"
    plants = known("plants", "用户养了两盆薄荷")
    water = claim("以后薄荷每 10 天浇一次水")
    assert conflicts([water], [plants], threshold=0.8) == {}


def test_a_named_attribute_picks_the_fact_about_it() -> None:
    cut = known("cut", "用户每个月去楼下的 Quick Cut 理发")
    gym = known("gym", "用户每周去三次健身房", embedding=[1.0, 0.11, 0.01])
    new = claim("理发的地方改为商场里的 Tony 造型了", cue=True)
    assert attribute(new.content) == ["理发"]
    assert conflicts([new], [gym, cut], threshold=0.8) == {"new": "cut"}


def test_an_intended_change_is_no_change() -> None:
    curtains = known("c", "用户家客厅挂的是白色纱帘")
    assert conflicts([claim("用户想把窗帘换成遮光帘", cue=True)], [curtains], 0.8) == {}
    bank = known("b", "The user banks with Barclays")
    new = claim("The user is thinking of switching to Monzo", cue=True)
    assert conflicts([new], [bank], threshold=0.8) == {}


def test_a_retraction_s_sibling_replaces_nothing_else() -> None:
    coach = known("coach", "用户的私教是 Lucas")
    rhythm = known("rhythm", "用户大概每 3 天练一次")
    gone = Claim(
        fact_id="gone", content="用户的私教不是 Lucas 了", kind="fact", polarity="neutral",
        slot=None, valid_from=T0 + timedelta(days=9), embedding=ALSO_NEAR, sources=("m-new",),
        correction=True, retracts=True,
    )  # fmt: skip
    now = claim("现在是 Mia 带用户练")
    assert conflicts([gone, now], [coach, rhythm], threshold=0.8) == {}


# --- extraction ----------------------------------------------------------------------------

TS = datetime(2026, 6, 3, 9, tzinfo=UTC)


@pytest.fixture
def run(said):  # type: ignore[no-untyped-def]
    return partial(said, at=TS)


def test_a_leading_change_marker_cues_the_rest_of_its_sentence(run) -> None:  # type: ignore[no-untyped-def]
    ex = run("On second thought, skip the museum — I've booked the aquarium for Saturday.")
    assert not any("second thought" in f.content.lower() for f in ex.facts)
    booked = [f for f in ex.facts if "aquarium" in f.content]
    assert len(booked) == 1 and booked[0].cue
    plan = run("Change of plan: from now on the recycling goes out on Wednesdays.")
    assert any("Wednesdays" in f.content and f.cue for f in plan.facts), plan


def test_a_chinese_changed_marker_is_no_fact_and_cues_the_value(run) -> None:  # type: ignore[no-untyped-def]
    ex = run("健身房我换了，现在去城西的乐刻。")
    assert not any(f.content.endswith("换了") for f in ex.facts), ex
    assert any("乐刻" in f.content and f.cue for f in ex.facts), ex


def test_not_x_any_more_retracts_x(run) -> None:  # type: ignore[no-untyped-def]
    ex = run("理疗师不是 Lucas 了，现在找 Mia 做。")
    assert any(f.retracts == ("Lucas",) for f in ex.facts), ex


@pytest.mark.parametrize(
    "text",
    [
        "My girlfriend is on a gluten-free diet.",
        "My flatmate plays the drums every night until midnight.",
        "我室友每天晚上弹吉他到很晚。",
        "我外婆有高血压，不能吃太咸。",
    ],
)
def test_another_person_s_statement_is_their_fact(run, text: str) -> None:  # type: ignore[no-untyped-def]
    """Issue 37: a constraint of someone's, or a routine of someone the user lives with, is
    kept with its subject (a person of the user's world), never as the user's."""
    ex = run(text)
    assert ex.facts, ex
    for f in ex.facts:
        assert f.subject and f.subject_kind == "person", f
        assert f.kind not in ("preference", "identity", "behavior_pattern"), f


@pytest.mark.parametrize(
    "text",
    [
        "楼上邻居家孩子在学小提琴。",
        "My colleague Marta loves sailing and keeps telling me to try it.",
        "我表哥上次去海边钓了一条大鱼。",
        "My neighbour swims in the lake every morning.",
    ],
)
def test_another_persons_taste_anecdote_or_routine_is_evidence_only(run, text: str) -> None:  # type: ignore[no-untyped-def]
    """Their taste, an anecdote, advice, the routine of someone outside the household: no
    Fact; the rejection names them, so recall can weigh the turn when a query does."""
    ex = run(text)
    assert not ex.facts, ex
    assert ex.rejections and ex.rejections[0].reason.startswith("about someone else ("), ex


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("我和男朋友都不吃香菜。", "香菜"),  # the user is in the subject
        ("孩子对猫毛过敏。", "猫毛"),  # a constraint the user has to respect
        ("My laptop is a ThinkPad X1.", "ThinkPad"),  # a thing, not a person
    ],
)
def test_the_user_s_own_statements_stay(run, text: str, needle: str) -> None:  # type: ignore[no-untyped-def]
    assert any(needle in f.content for f in run(text).facts)


def test_an_in_case_supposition_and_its_consequence_are_no_facts(run) -> None:  # type: ignore[no-untyped-def]
    ex = run("万一航班延误，酒店那边是不是还能保留房间？")
    assert not ex.facts, ex


def test_a_trailing_no_instruction_is_kept(run) -> None:  # type: ignore[no-untyped-def]
    ex = run("Towels get folded in thirds, no fabric softener.")
    assert any("softener" in f.content for f in ex.facts), ex


def test_someone_elses_wish_is_no_plan_but_their_dated_trip_is(run) -> None:  # type: ignore[no-untyped-def]
    assert not run("我同事小杜一直想去冰岛看极光。").facts
    trip = run("我表妹下个月8号要去上海出差。").facts
    assert [(f.kind, f.subject) for f in trip] == [("plan", "表妹")]
