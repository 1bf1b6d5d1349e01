"""Behaviour events: evidence thresholds, provenance, slots, polarity, stable keys."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from spacy.language import Language

from extract.events.behaviour import extract_events
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


# --- any domain: the attribute comes from the event, not from a word list ------------------


def test_favourites_sharing_a_metadata_value(en_nlp: Language, zh_nlp: Language) -> None:
    events = [
        _ev("a", "favorite", "favorite: Ladder bookcase, 70 cm wide", material="walnut"),
        _ev("b", "favorite", "favorite: Extendable dining table", 1, material="walnut"),
        _ev("c", "click", "click: Velvet armchair", 2, material="velvet"),
    ]
    result = extract_events(events, en_nlp, zh_nlp)
    walnut = _find(result.facts, "walnut")
    assert walnut.source_message_ids == ("a", "b") and walnut.polarity == "likes"
    assert not walnut.explicit and walnut.confidence < 1
    assert not any("velvet" in f.content.lower() for f in result.facts)  # one click
    assert any(r.source_message_ids == ("c",) for r in result.rejections)


def test_favourites_sharing_a_category_zh(en_nlp: Language, zh_nlp: Language) -> None:
    events = [
        _ev("a", "favorite", "收藏：某茶 A 100g", category="岩茶", origin="甲地"),
        _ev("b", "favorite", "收藏：某茶 B 100g", 1, category="岩茶", origin="乙地"),
        _ev("c", "click", "点击：某绿茶礼盒", 2, category="绿茶"),
    ]
    facts = extract_events(events, en_nlp, zh_nlp).facts
    assert _find(facts, "岩茶").content == "用户对岩茶更感兴趣"
    assert not any("绿茶" in f.content or "甲地" in f.content for f in facts)


def test_favourites_sharing_a_word_of_their_names(en_nlp: Language, zh_nlp: Language) -> None:
    events = [
        _ev("a", "favorite", "favorite: Teak garden bench"),
        _ev("b", "favorite", "favorite: Teak folding chair", 1),
    ]
    facts = extract_events(events, en_nlp, zh_nlp).facts
    teak = _find(facts, "teak")
    assert teak.source_message_ids == ("a", "b") and teak.kind == "preference"
    one = extract_events(events[:1], en_nlp, zh_nlp)
    assert one.facts == ()  # one favourite is not a preference


def test_skips_of_different_items_sharing_a_tag(en_nlp: Language, zh_nlp: Language) -> None:
    events = [
        _ev("a", "skip", "skip: recommended — Show One (docudrama)", genre="docudrama"),
        _ev("b", "skip", "skip: recommended — Show Two", 1, genre="docudrama"),
        _ev("c", "skip", "跳过推荐：节目三", 2, genre="docudrama"),
    ]
    (fact,) = extract_events(events, en_nlp, zh_nlp).facts
    assert fact.polarity == "avoids" and fact.source_message_ids == ("a", "b", "c")
    assert "docudrama" in fact.content and "Show" not in fact.content


def test_filters_on_any_field(en_nlp: Language, zh_nlp: Language) -> None:
    events = [
        _ev("a", "filter", "筛选：席别 = 二等座", field="seat_class", value="二等座"),
        _ev("b", "filter", "筛选：席别 = 二等座", 1, field="seat_class", value="二等座"),
        _ev("c", "filter", "filter: RAM: 32GB", 2),
        _ev("d", "filter", "filter: RAM: 32GB", 3),
        _ev("e", "filter", "filter: width ≤ 180 cm", 4),
    ]
    facts = extract_events(events, en_nlp, zh_nlp).facts
    seat = next(f for f in facts if f.slot == "filter:seat_class")
    assert (seat.value, seat.source_message_ids) == ("二等座", ("a", "b"))
    assert "席别" in seat.content and "二等座" in seat.content
    ram = next(f for f in facts if f.slot == "filter:ram")
    assert ram.value == "32GB" and ram.source_message_ids == ("c", "d")
    assert ram.confidence > next(f for f in facts if f.slot == "filter:width").confidence
    assert next(f for f in facts if f.slot == "filter:width").value == "<=180 cm"


def test_dwell_on_a_page_names_the_page(en_nlp: Language, zh_nlp: Language) -> None:
    events = [_ev("a", "dwell", "dwell: 'Long History' episode page, 240 s", genre="history")]
    (fact,) = extract_events(events, en_nlp, zh_nlp).facts
    assert "Long History" in fact.content and "history" in fact.content
    assert "review" not in fact.content
