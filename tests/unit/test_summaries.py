"""Summaries: grouping, composed content, confidence, evidence, idempotence, corrections."""

from __future__ import annotations

import dataclasses
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from consolidation.decay import DECAY_RATES
from consolidation.summaries import (
    build_summaries,
    group_facts,
    match_previous,
    summary_changed,
    summary_confidence,
    summary_key,
)
from extract.types import EntityRef, FactRecord, Lang, SummaryDraft
from tests.unit.test_topics import make_fact, seed_facts

NOW = datetime(2025, 5, 11, 9, 0, tzinfo=UTC)


def _one(facts: list[FactRecord], topic: str = "running shoes") -> SummaryDraft:
    drafts = build_summaries(topic, facts, NOW)
    assert len(drafts) == 1
    return drafts[0]


def test_seed_zh_gives_one_shopping_summary() -> None:
    facts = seed_facts("zh")
    [draft] = build_summaries("running shoes", facts, NOW)
    text = draft.content
    for needle in ("慢跑鞋", "800 元以内", "500-800", "尺码大概率为 42", "缓震", "公园", "5 公里"):
        assert needle in text
    assert "浅色" in text and "碳板" in text
    assert text.startswith("该用户近期有购买日常慢跑鞋的意图")
    assert text.endswith("。")
    assert draft.kind == "shopping_intent"
    assert draft.lang == "zh"
    assert draft.decay_factor == DECAY_RATES["shopping_intent"]
    assert 0.5 < draft.confidence < 1
    assert set(draft.source_fact_ids) == {f.fact_id for f in facts}
    assert draft.event_start == min(f.time_start for f in facts)
    assert draft.event_end == max(f.time_end for f in facts)
    assert draft.evidence["explicit"] == 4 and draft.evidence["implicit"] == 4
    assert draft.evidence["behaviour"] == {"favorite": 2, "filter": 2, "skip": 1}
    assert draft.evidence["fact_ids"] == list(draft.source_fact_ids)
    assert "zh-fav1" in draft.evidence["message_ids"]


def test_seed_en_gives_one_shopping_summary() -> None:
    [draft] = build_summaries("running shoes", seed_facts("en"), NOW)
    text = draft.content
    assert text.startswith("The user recently intends to buy everyday jogging shoes")
    for needle in (
        "park",
        "5 km",
        "cushioned",
        "light-coloured",
        "budget under 800",
        "often browsing 500-800",
        "most likely wears size 42",
        "carbon-plate",
    ):
        assert needle in text
    assert draft.lang == "en"
    assert draft.confidence < 1


def test_explicit_values_are_not_hedged() -> None:
    facts = [
        make_fact("i", "用户想买一双跑鞋", "plan", lang="zh"),
        make_fact("s", "用户穿 42 码", "identity", lang="zh", slot="shoe_size", value="42"),
    ]
    [draft] = build_summaries("running shoes", facts, NOW)
    assert "尺码为 42" in draft.content and "大概率" not in draft.content


def test_spec_wording_of_the_scenario_fact() -> None:
    facts = [
        make_fact("i", "用户正在寻找日常慢跑鞋", "plan", lang="zh"),
        make_fact("p", "用户更关注公园 5 公里慢跑场景", "preference", lang="zh"),
    ]
    [draft] = build_summaries("running shoes", facts, NOW)
    assert "主要使用场景是公园 5 公里慢跑" in draft.content


def test_confidence_orders_evidence_kinds() -> None:
    explicit = [make_fact("a", "The user is vegetarian", "identity")]
    repeated = [
        make_fact(
            "b",
            "The user keeps favouriting tea sets",
            explicit=False,
            source_message_ids=("m1", "m2", "m3"),
            event_types=("favorite", "favorite", "favorite"),
        )
    ]
    single = [make_fact("c", "The user viewed a teapot", explicit=False, event_types=("view",))]
    c_exp, c_rep, c_one = (summary_confidence(x) for x in (explicit, repeated, single))
    assert 1 > c_exp > c_rep > c_one > 0
    assert summary_confidence(seed_facts("en")) > c_exp  # more evidence
    assert summary_confidence(explicit * 8) < 1


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_same_facts_give_equal_drafts(lang: Lang) -> None:
    facts = seed_facts(lang)
    first = build_summaries("running shoes", facts, NOW)
    shuffled = facts[:]
    random.Random(3).shuffle(shuffled)
    later = NOW + timedelta(days=30)
    assert build_summaries("running shoes", shuffled, later) == first
    draft = first[0]
    assert summary_key("running shoes", reversed(draft.source_fact_ids)) == summary_key(
        "Running  Shoes", draft.source_fact_ids
    )
    assert not summary_changed(draft.content, reversed(draft.source_fact_ids), draft)


def test_correction_replaces_the_old_budget() -> None:
    facts = seed_facts("zh")
    old = facts[1]
    facts[1] = dataclasses.replace(old, validity="superseded")
    new = make_fact(
        "zh-budget2",
        "用户把预算提高到 1000 以内",
        "constraint",
        lang="zh",
        minutes=60,
        slot="budget",
        value="<=1000",
    )
    before = build_summaries("running shoes", seed_facts("zh"), NOW)[0]
    [after] = build_summaries("running shoes", [*facts, new], NOW)
    assert "1000 元以内" in after.content
    assert "800 元以内" not in after.content
    assert old.fact_id not in after.source_fact_ids
    assert "zh-budget2" in after.source_fact_ids
    assert summary_changed(before.content, before.source_fact_ids, after)
    prev_id = "sum-old"
    key = summary_key(after.topic, after.source_fact_ids)
    assert match_previous([after], {prev_id: before.source_fact_ids}) == {key: prev_id}


def test_correction_without_price_range_drops_800_entirely() -> None:
    facts = [f for f in seed_facts("en") if f.slot != "price_range"]
    facts = [
        dataclasses.replace(f, validity="superseded") if f.slot == "budget" else f for f in facts
    ]
    new = make_fact(
        "en-budget2",
        "The user raised the budget to 1000",
        "constraint",
        minutes=30,
        slot="budget",
        value="<=1000",
    )
    [draft] = build_summaries("running shoes", [*facts, new], NOW)
    assert "budget under 1000" in draft.content
    assert "800" not in draft.content


def test_only_active_facts_count() -> None:
    facts = [dataclasses.replace(f, validity="deleted") for f in seed_facts("en")]
    assert build_summaries("running shoes", facts, NOW) == []


def test_two_unrelated_trips_give_two_summaries() -> None:
    tokyo = EntityRef("Tokyo", "GPE", "tokyo")
    lisbon = EntityRef("Lisbon", "GPE", "lisbon")
    facts = [
        make_fact("t1", "The user is planning a trip to Tokyo", "plan", entities=(tokyo,)),
        make_fact("t2", "The user booked a hotel near Shinjuku", "fact", minutes=10),
        make_fact(
            "l1",
            "The user flew to Lisbon for a conference",
            "timeline",
            minutes=60 * 24 * 120,
            session="s9",
            entities=(lisbon,),
        ),
        make_fact(
            "l2",
            "The user loved the pastel de nata in Lisbon",
            "preference",
            minutes=60 * 24 * 125,
            session="s10",
            entities=(lisbon,),
        ),
    ]
    drafts = build_summaries("travel", facts, NOW)
    assert [d.source_fact_ids for d in drafts] == [("t1", "t2"), ("l1", "l2")]
    assert drafts[0].content.startswith("The user is planning a trip to Tokyo")
    assert "Lisbon" in drafts[1].content and "Tokyo" not in drafts[1].content
    assert len({summary_key("travel", d.source_fact_ids) for d in drafts}) == 2


def test_chit_chat_facts_factor_the_subject_and_keep_dates() -> None:
    caroline = EntityRef("Caroline", "PERSON", "caroline")
    facts = [
        make_fact(
            "c1",
            "Caroline went to an LGBTQ support group",
            "timeline",
            entities=(caroline,),
            session="s1",
        ),
        make_fact(
            "c2",
            "Caroline is researching adoption agencies",
            "plan",
            minutes=5,
            entities=(caroline,),
            session="s1",
        ),
        make_fact(
            "m1",
            "Melanie is planning a camping trip",
            "plan",
            minutes=6,
            session="s1",
        ),
    ]
    [draft] = build_summaries("family & relationships", facts, NOW)
    assert draft.content == (
        "Caroline went to an LGBTQ support group (2025-05-10); is researching adoption "
        "agencies (2025-05-10). Melanie is planning a camping trip (2025-05-10)."
    )
    assert draft.kind == "plan"
    assert [e.normalized for e in draft.entities] == ["caroline"]


def test_speaker_name_alone_does_not_glue_months_together() -> None:
    caroline = EntityRef("Caroline", "PERSON", "caroline")
    facts = [
        make_fact(
            f"c{i}",
            f"Caroline mentioned hobby number {i}",
            "fact",
            minutes=60 * 24 * 40 * i,
            session=f"s{i}",
            entities=(caroline,),
        )
        for i in range(8)
    ]
    assert len(group_facts(facts)) == 8


def test_big_groups_split_by_session_then_in_time_order() -> None:
    melanie = EntityRef("Pottery", "ORG", "pottery")
    facts = [
        make_fact(
            f"p{i:02d}",
            f"Melanie made pot number {i}",
            minutes=i,
            session="s1" if i < 20 else "s2",
            entities=(melanie,),
        )
        for i in range(26)
    ]
    groups = group_facts(facts, max_facts=12)
    assert [len(g) for g in groups] == [12, 8, 6]
    assert {f.session_ids for f in groups[2]} == {("s2",)}
    # a later session adds a group and leaves the earlier ones as they were
    later = make_fact("p99", "Melanie made a vase", minutes=500, session="s3", entities=(melanie,))
    assert group_facts([*facts, later], max_facts=12)[:3] == groups
    assert len(group_facts(facts, max_facts=30)) == 1


def test_the_facts_of_a_stored_summary_stay_one_group_when_planned_again_alone() -> None:
    """Consolidation plans again only the Summaries a batch can change, with their own
    Facts: those of one stored Summary (a run of a big component, linked through Facts not
    read) stay one group, so planning it again without a change keeps it as it was."""
    kiln = EntityRef("Kiln", "ORG", "kiln")
    facts = [
        make_fact(f"k{i:02d}", f"Fired glaze test {i}", minutes=600 * i, session=f"s{i}")
        for i in range(3)
    ]
    linker = make_fact("k99", "The kiln runs hot", minutes=3000, session="s9", entities=(kiln,))
    # unlinked by session, entity, slot or time: three groups
    assert len(group_facts(facts)) == 3
    together = {f.fact_id: "sum-1" for f in facts}
    [one] = group_facts(facts, together=together)
    assert [f.fact_id for f in one] == ["k00", "k01", "k02"]
    [again] = build_summaries("pottery", facts, NOW, together=together)
    assert again.source_fact_ids == ("k00", "k01", "k02")
    # a new Fact linked to none of them makes a group of its own beside the stored one
    drafts = build_summaries("pottery", [*facts, linker], NOW, together=together)
    assert [d.source_fact_ids for d in drafts] == [("k00", "k01", "k02"), ("k99",)]


def test_long_groups_are_capped_keeping_confident_facts() -> None:
    facts = [
        make_fact(
            f"f{i:02d}",
            f"Melanie talked about painting project number {i} with friends",
            "fact",
            minutes=i,
            confidence=0.5 if i % 2 else 0.9,
        )
        for i in range(30)
    ]
    [draft] = build_summaries("hobbies & interests", facts, NOW, max_chars=300, max_facts=30)
    assert len(draft.content) <= 300
    assert len(draft.source_fact_ids) == 30
    shown = draft.evidence["content_fact_ids"]
    assert 0 < len(shown) < 30
    confident = {f.fact_id for f in facts if f.confidence > 0.8}
    assert set(shown) <= confident


def test_implicit_general_facts_keep_uncertainty() -> None:
    facts = [
        make_fact("a", "用户浏览了三款露营帐篷", "behavior_pattern", lang="zh", explicit=False),
    ]
    [draft] = build_summaries("travel", facts, NOW)
    assert draft.content == "该用户可能浏览了三款露营帐篷。"
    [en] = build_summaries(
        "travel",
        [make_fact("b", "The user is interested in tents", explicit=False)],
        NOW,
    )
    assert "interested" in en.content and "likely" not in en.content  # already hedged


def test_kinds_and_decay_table() -> None:
    ident = [make_fact("i", "The user's native language is Portuguese", "identity")]
    pref = [make_fact("p", "The user prefers aisle seats", "preference")]
    assert _one(ident, "identity").kind == "identity"
    assert _one(pref, "travel").kind == "preference"
    rates = [DECAY_RATES[k] for k in ("identity", "preference", "timeline", "shopping_intent")]
    assert rates == sorted(rates)


def test_labels_entities_anchors_are_merged() -> None:
    berlin = EntityRef("Berlin", "GPE", "berlin")
    facts = [
        make_fact(
            "a",
            "欧洲团队默认 Berlin",
            "preference",
            lang="zh",
            entities=(berlin,),
            labels=("team",),
            anchors=("booking:1",),
        ),
        make_fact(
            "b",
            "周五不要安排会议 Berlin",
            "constraint",
            lang="zh",
            entities=(EntityRef("berlin", "GPE", "berlin"),),
            labels=("team", "rule"),
            anchors=("booking:2", "booking:1"),
        ),
    ]
    [draft] = build_summaries("meetings & scheduling", facts, NOW)
    assert draft.labels == ("team", "rule")
    assert draft.entities == (berlin,)
    assert draft.anchors == ("booking:1", "booking:2")
    assert draft.evidence["anchors"] == ["booking:1", "booking:2"]
    assert draft.content == "欧洲团队默认 Berlin。周五不要安排会议 Berlin。"


def test_spec_fact_wording_gives_the_spec_like_summary() -> None:
    implicit: dict[str, Any] = {"explicit": False, "confidence": 0.7}
    facts = [
        make_fact("1", "用户正在寻找日常慢跑鞋。", "plan", lang="zh"),
        make_fact(
            "2", "用户预算大多在 800 以内。", "constraint", lang="zh", slot="budget", value="<=800"
        ),
        make_fact(
            "3",
            "用户常看 42 码。",
            "behavior_pattern",
            lang="zh",
            slot="size",
            value="42",
            event_types=("filter",),
            **implicit,
        ),
        make_fact("4", "用户偏好缓震、脚感不硬的跑鞋。", "preference", lang="zh", polarity="likes"),
        make_fact("5", "用户更关注公园 5 公里慢跑场景。", "preference", lang="zh"),
        make_fact(
            "6",
            "用户对浅色、外观不夸张的鞋款更感兴趣。",
            "preference",
            lang="zh",
            polarity="likes",
            event_types=("favorite",),
            **implicit,
        ),
        make_fact(
            "7",
            "用户当前不倾向碳板竞速鞋。",
            "preference",
            lang="zh",
            polarity="avoids",
            event_types=("skip",),
            **implicit,
        ),
    ]
    [draft] = build_summaries("running shoes", facts, NOW)
    assert draft.content == (
        "该用户近期有购买日常慢跑鞋的意图，主要使用场景是公园 5 公里慢跑；"
        "偏好缓震、脚感不硬的跑鞋，对浅色、外观不夸张的鞋款更感兴趣；"
        "预算在 800 元以内，尺码大概率为 42；当前不倾向碳板竞速鞋。"
    )


def test_other_people_are_not_merged_into_the_user() -> None:
    facts = [
        make_fact("i", "The user is looking for a tent", "plan"),
        make_fact("m", "Melanie likes green tents", "preference", polarity="likes"),
    ]
    [draft] = build_summaries("travel", facts, NOW)
    assert draft.content == "The user recently intends to buy a tent. Melanie likes green tents."


def test_match_previous_pairs_by_overlap() -> None:
    a = build_summaries(
        "t", [make_fact("a1", "x one", session="p"), make_fact("a2", "x two", session="p")], NOW
    )[0]
    b = build_summaries("t", [make_fact("b1", "y one", session="q", minutes=5000)], NOW)[0]
    pairs = match_previous([a, b], {"old-1": ["a1", "a2", "gone"], "old-2": ["zzz"]})
    assert pairs == {summary_key("t", ["a1", "a2"]): "old-1"}


def test_a_fact_about_someone_else_keeps_its_subject_in_a_summary() -> None:
    facts = [
        make_fact("f1", "用户今年41岁", lang="zh"),
        make_fact("f2", "用户的外甥今年12岁", lang="zh", minutes=1),
    ]
    text = _one(facts, "个人信息").content
    assert "用户的外甥" in text and "；的" not in text, text


def test_a_summary_speaks_of_one_subject() -> None:
    """Facts of one session about the user and about the user's sister make two Summaries,
    the sister's naming her as its subject."""
    facts = [
        make_fact("a", "The user renews the car insurance every March", minutes=0),
        make_fact("b", "The user's sister pays her insurer monthly", minutes=1,
                  subject="sister", subject_kind="person"),
        make_fact("c", "The user pays the car insurance by card", minutes=2),
    ]  # fmt: skip
    drafts = build_summaries("insurance", facts, NOW)
    by_facts = {d.source_fact_ids: d.subject for d in drafts}
    assert by_facts == {("a", "c"): None, ("b",): "sister"}, by_facts
