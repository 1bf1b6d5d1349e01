"""Chat extraction: splitting, kinds, slots, corrections, wording, rejections."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from spacy.language import Language

from extract.chat.facts import extract_chat, extract_chats
from extract.types import Extraction, FactDraft, MessageRecord

TS = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)


def _msg(text: str, role: str = "user", mid: str = "m", **meta: object) -> MessageRecord:
    return MessageRecord(
        message_id=mid,
        user_id="u",
        session_id="s",
        role=role,
        content=text,
        timestamp=TS,
        metadata=dict(meta),
    )


Run = Callable[..., Extraction]


@pytest.fixture
def run(en_nlp: Language, zh_nlp: Language) -> Run:
    def _run(text: str, role: str = "user", **meta: object) -> Extraction:
        return extract_chat(_msg(text, role, "m", **meta), en_nlp, zh_nlp)

    return _run


def _one(facts: tuple[FactDraft, ...], needle: str) -> FactDraft:
    hits = [f for f in facts if needle in f.content]
    assert len(hits) == 1, [f.content for f in facts]
    return hits[0]


def test_meeting_sentence_zh_gives_three_whole_facts(run: Run) -> None:
    facts = run("欧洲团队默认 Berlin，美洲团队默认 Toronto，但周五不要安排会议").facts
    assert len(facts) == 3
    berlin = _one(facts, "欧洲团队默认 Berlin")
    assert (berlin.slot, berlin.value) == ("default_city:europe_team", "Berlin")
    assert _one(facts, "美洲团队默认 Toronto").slot == "default_city:americas_team"
    friday = _one(facts, "周五不要安排会议")
    assert (friday.kind, friday.polarity) == ("constraint", "avoids")


def test_meeting_sentence_en_gives_three_whole_facts(run: Run) -> None:
    facts = run(
        "The Europe team defaults to Berlin, the Americas team defaults to Toronto, "
        "but don't schedule meetings on Fridays"
    ).facts
    assert len(facts) == 3
    assert _one(facts, "Europe team defaults to Berlin").slot == "default_city:europe_team"
    assert _one(facts, "Americas team defaults to Toronto").slot == "default_city:americas_team"
    assert _one(facts, "Fridays").kind == "constraint"


@pytest.mark.parametrize(
    ("original", "correction"),
    [
        ("欧洲团队默认 Berlin", "更正：欧洲团队以后默认 Paris"),
        ("The Europe team defaults to Berlin", "Correction: the Europe team now defaults to Paris"),
        ("预算 800 以内", "不对，预算 1000 以内"),
        ("My budget is under 800.", "Actually my budget is 1000 now."),
        ("I wear size 42.", "I meant size 43."),
    ],
)
def test_correction_keeps_the_slot(run: Run, original: str, correction: str) -> None:
    (before,) = run(original).facts
    (after,) = run(correction).facts
    assert after.is_correction and not before.is_correction
    assert after.slot == before.slot and after.key == before.key
    assert after.value != before.value
    for marker in ("更正", "不对", "Correction", "Actually", "meant"):
        assert marker not in after.content


@pytest.mark.parametrize(
    "text",
    [
        "你好！",
        "谢谢，好的",
        "Hi!",
        "Thanks so much.",
        "ok",
        "Hey Mel! Good to see you!",
        "昨天看的鞋还有推荐吗？",
        "Can you recommend some running shoes?",
        "That's awesome!",
    ],
)
def test_chit_chat_and_questions_give_no_facts(run: Run, text: str) -> None:
    result = run(text)
    assert result.facts == ()
    assert result.rejections and all(r.reason for r in result.rejections)


def test_assistant_turn_is_skipped(run: Run) -> None:
    result = run("I'd recommend a budget under 800.", role="assistant")
    assert result.facts == () and "assistant" in result.rejections[0].reason


def test_wording_is_third_person(run: Run) -> None:
    facts = run("I live in Paris and I work as a nurse, but I don't like spicy food.").facts
    contents = [f.content for f in facts]
    assert contents == [
        "The user lives in Paris",
        "The user works as a nurse",
        "The user doesn't like spicy food",
    ]
    assert [f.slot for f in facts] == ["home_city", "job", None]
    assert facts[2].polarity == "avoids"


def test_speaker_name_is_the_subject(run: Run) -> None:
    # "self": the named speaker is a person whose memory this is (LoCoMo's two speakers)
    (fact,) = run(
        "I'm planning to move to Toronto next month.", speaker="Caroline", self=True
    ).facts
    assert fact.content.startswith("Caroline is planning")
    assert fact.kind == "plan" and fact.time_start.month == 12
    (zh,) = run("我下周想去柏林", speaker="小王", self=True).facts
    assert zh.content.startswith("小王")


def test_time_cue_moves_the_range(run: Run) -> None:
    (fact,) = run("I went to a support group yesterday.").facts
    assert fact.kind == "timeline"
    assert fact.time_start.date().isoformat() == "2026-11-29"
    assert fact.time_end.date().isoformat() == "2026-11-29"


def test_anchors_from_text_and_metadata(run: Run) -> None:
    (fact,) = run("我的订单号是 A12345").facts
    assert fact.anchors == ("order:A12345",)
    (fact,) = run("My order #12345 hasn't arrived yet.", booking_id="B-9").facts
    assert set(fact.anchors) == {"order:12345", "booking:B-9"}


def test_kinds(run: Run) -> None:
    cases = {
        "我叫小王": "identity",
        "我打算下个月去东京": "plan",
        "我每天早上跑步": "behavior_pattern",
        "我喜欢浅色的鞋": "preference",
        "I usually run in the morning": "behavior_pattern",
        "I love painting landscapes": "preference",
        "I hate crowded gyms": "preference",
        "Never book flights before 9am": "constraint",
    }
    for text, kind in cases.items():
        (fact,) = run(text).facts
        assert fact.kind == kind, text


def test_idempotent(en_nlp: Language, zh_nlp: Language) -> None:
    msgs = [
        _msg("想买一双日常慢跑鞋，不要太硬，预算 800 以内。", mid="a"),
        _msg("The Europe team defaults to Berlin, but don't schedule meetings on Fridays", mid="b"),
        _msg("thanks!", mid="c"),
    ]
    first = [extract_chat(m, en_nlp, zh_nlp) for m in msgs]
    assert first == [extract_chat(m, en_nlp, zh_nlp) for m in msgs]
    assert first == extract_chats(msgs, en_nlp, zh_nlp)


def _seed_chat(msgs: list[MessageRecord], en_nlp: Language, zh_nlp: Language) -> list[FactDraft]:
    return [f for m in msgs if m.role == "user" for f in extract_chat(m, en_nlp, zh_nlp).facts]


def test_seed_chat_zh(seed_zh: list[MessageRecord], en_nlp: Language, zh_nlp: Language) -> None:
    facts = _seed_chat(seed_zh, en_nlp, zh_nlp)
    intent = _one(tuple(facts), "日常慢跑鞋")
    assert intent.kind == "plan" and intent.source_message_ids == ("m1",)
    budget = next(f for f in facts if f.slot == "budget")
    assert budget.value == "<=800" and budget.content == "用户预算在 800 以内"
    assert budget.source_message_ids == ("m1",)
    assert _one(tuple(facts), "硬").source_message_ids == ("m1",)
    park = _one(tuple(facts), "公园")
    assert "5 公里" in park.content and park.source_message_ids == ("m2",)
    assert _one(tuple(facts), "夸张").source_message_ids == ("m2",)
    assert all(f.explicit and f.confidence == 1.0 and f.lang == "zh" for f in facts)


def test_seed_chat_en(seed_en: list[MessageRecord], en_nlp: Language, zh_nlp: Language) -> None:
    facts = _seed_chat(seed_en, en_nlp, zh_nlp)
    assert _one(tuple(facts), "jogging shoes").kind == "plan"
    budget = next(f for f in facts if f.slot == "budget")
    assert budget.value == "<=800" and budget.content == "The user's budget is under 800"
    assert "hard" in _one(tuple(facts), "jogging shoes").content
    park = _one(tuple(facts), "park")
    assert "5 km" in park.content and park.source_message_ids == ("en-m2",)
    assert _one(tuple(facts), "flashy").source_message_ids == ("en-m2",)


def test_multi_party_logs(run: Run) -> None:
    result = run(
        "Don't give up, buddy! Just got some new shoes, too!", speaker="Melanie", self=True
    )
    assert [f.content for f in result.facts] == ["Melanie just got some new shoes, too"]
    assert any("other party" in r.reason for r in result.rejections)


def test_dropped_subject_zh(run: Run) -> None:
    facts = run("我是一名产品经理，住在杭州").facts
    assert [(f.slot, f.value) for f in facts] == [("job", "产品经理"), ("home_city", "Hangzhou")]
    assert facts[1].content == "用户住在杭州"


def test_a_verb_led_clause_goes_on_about_the_object_before_it(run: Run) -> None:
    """Tightly bound: "X 用 Y，跑在 Z 上" is one Fact, not "the user runs on Z"."""
    facts = run("我家的路由器用 OpenWrt，跑在一台旧笔记本上。").facts
    assert len(facts) == 1 and "旧笔记本" in facts[0].content and "OpenWrt" in facts[0].content
    parts = run("我是一名护士，住在苏州").facts
    assert [f.content for f in parts][-1] == "用户住在苏州", "a predicate noun is no object"
