"""Behaviour events: evidence thresholds, provenance, slots, polarity, stable keys."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from spacy.language import Language

from extract.behaviour import extract_events
from extract.types import FactDraft, MessageRecord

TS = datetime(2026, 11, 30, 10, 0, tzinfo=UTC)


def _ev(mid: str, etype: str, text: str, minute: int = 0, **meta: object) -> MessageRecord:
    return MessageRecord(
        message_id=mid,
        user_id="u",
        session_id="s",
        role="event",
        content=text,
        timestamp=TS + timedelta(minutes=minute),
        event_type=etype,
        metadata=dict(meta),
    )


def _find(facts: tuple[FactDraft, ...], needle: str) -> FactDraft:
    hits = [f for f in facts if needle in f.content]
    assert len(hits) == 1, [f.content for f in facts]
    return hits[0]


def _events(msgs: list[MessageRecord]) -> list[MessageRecord]:
    return [m for m in msgs if m.role == "event"]


def test_seed_events_zh(seed_zh: list[MessageRecord], en_nlp: Language, zh_nlp: Language) -> None:
    facts = extract_events(_events(seed_zh), en_nlp, zh_nlp).facts
    assert all(not f.explicit and 0 < f.confidence < 1 for f in facts)
    price = next(f for f in facts if f.slot == "price_range")
    assert (price.value, price.source_message_ids) == ("500-800", ("e2",))
    assert price.content == "用户筛选的价格区间为 500-800 元"
    size = next(f for f in facts if f.slot == "size")
    assert (size.value, size.source_message_ids, size.content) == ("42", ("e3",), "用户常看 42 码")
    cushion = _find(facts, "缓震")
    assert cushion.source_message_ids == ("e4",) and cushion.polarity == "likes"
    light = _find(facts, "浅色")
    assert light.source_message_ids == ("e5", "e6") and light.content == "用户对浅色鞋款更感兴趣"
    assert _find(facts, "脚感柔软").source_message_ids == ("e7",)
    skip = _find(facts, "碳板")
    assert (skip.polarity, skip.source_message_ids) == ("avoids", ("e8",))
    assert skip.content == "用户当前不倾向碳板竞速鞋"


def test_seed_events_en(seed_en: list[MessageRecord], en_nlp: Language, zh_nlp: Language) -> None:
    facts = extract_events(_events(seed_en), en_nlp, zh_nlp).facts
    assert next(f for f in facts if f.slot == "price_range").value == "500-800"
    size = next(f for f in facts if f.slot == "size")
    assert size.content == "The user mostly looks at size 42"
    assert _find(facts, "cushioned").source_message_ids == ("en-e4",)
    assert _find(facts, "light-coloured").source_message_ids == ("en-e5", "en-e6")
    skip = _find(facts, "carbon-plate")
    assert skip.polarity == "avoids"
    assert skip.content == "The user is currently not inclined towards carbon-plate racing shoes"
    assert all(f.lang == "en" and not f.explicit for f in facts)


def test_deleting_one_favourite_keeps_the_other_as_source(
    seed_zh: list[MessageRecord], en_nlp: Language, zh_nlp: Language
) -> None:
    events = [m for m in _events(seed_zh) if m.message_id != "e5"]
    facts = extract_events(events, en_nlp, zh_nlp, min_repeat=1).facts
    assert _find(facts, "浅色").source_message_ids == ("e6",)


def test_single_click_is_not_a_preference(en_nlp: Language, zh_nlp: Language) -> None:
    result = extract_events([_ev("c1", "click", "点击：鞋款 X")], en_nlp, zh_nlp)
    assert result.facts == ()
    (rej,) = result.rejections
    assert rej.source_message_ids == ("c1",) and "below evidence threshold 2" in rej.reason
    result = extract_events([_ev("c2", "click", "", item="Pegasus 41")], en_nlp, zh_nlp)
    assert result.facts == () and "1 click on Pegasus 41" in result.rejections[0].reason


def test_single_favourite_attribute_is_rejected(en_nlp: Language, zh_nlp: Language) -> None:
    result = extract_events([_ev("f1", "favorite", "收藏：浅色鞋款 A")], en_nlp, zh_nlp)
    assert result.facts == () and result.rejections


def test_text_only_events(en_nlp: Language, zh_nlp: Language) -> None:
    events = [
        _ev("a", "filter", "筛选：价格 = 500-800"),
        _ev("b", "filter", "filter: size = 42", 1),
        _ev("c", "view", "浏览：3 双轻量跑鞋", 2),
    ]
    facts = extract_events(events, en_nlp, zh_nlp).facts
    assert {(f.slot, f.value) for f in facts if f.slot} == {
        ("price_range", "500-800"),
        ("size", "42"),
    }
    assert _find(facts, "轻量").source_message_ids == ("c",)


def test_repeated_filter_raises_confidence(en_nlp: Language, zh_nlp: Language) -> None:
    one = extract_events([_ev("a", "filter", "筛选：尺码 = 42")], en_nlp, zh_nlp).facts[0]
    two = extract_events(
        [_ev("a", "filter", "筛选：尺码 = 42"), _ev("b", "filter", "筛选：尺码 = 42", 5)],
        en_nlp,
        zh_nlp,
    ).facts[0]
    assert two.confidence > one.confidence and two.source_message_ids == ("a", "b")


def test_keys_are_stable_with_one_more_event(
    seed_zh: list[MessageRecord], en_nlp: Language, zh_nlp: Language
) -> None:
    events = _events(seed_zh)
    first = extract_events(events, en_nlp, zh_nlp)
    assert first == extract_events(list(reversed(events)), en_nlp, zh_nlp)  # idempotent
    more = [*events, _ev("e9", "favorite", "收藏：浅色鞋款 C", 30, attributes=["浅色"])]
    more = [MessageRecord(**{**m.__dict__, "user_id": "u-seed"}) for m in more]
    second = extract_events(more, en_nlp, zh_nlp)
    assert {f.key for f in first.facts} == {f.key for f in second.facts}
    light = next(f for f in second.facts if f.key == "preference:attribute:light_colour")
    assert light.source_message_ids == ("e5", "e6", "e9")
