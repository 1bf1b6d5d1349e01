"""One language per memory (issue 37, item 5): a Fact, a Summary and a Topic name are
written in the language the user wrote them in; ids, e-mails and brands the user wrote stay."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from spacy.language import Language

from consolidation.summaries import build_summaries
from consolidation.topic_names import topic_embedding_text
from consolidation.topics import assign_topics
from extract.chat.facts import extract_chat
from extract.types import EntityRef, FactRecord, Lang, MessageRecord, TopicRecord
from text import rx
from text.lang import detect_lang

T0 = datetime(2026, 9, 1, 9, tzinfo=UTC)
# an English word the engine could add (the user's ids, e-mails and brands are taken out first)
_ENGLISH_WORD = rx.compile(r"\b[A-Za-z]{3,}\b")


def _fact(fid: str, content: str, lang: Lang, minutes: int = 0, **extra: object) -> FactRecord:
    when = T0 + timedelta(minutes=minutes)
    return FactRecord(
        fact_id=fid,
        user_id="u1",
        content=content,
        kind="fact",
        time_start=when,
        time_end=when,
        lang=lang,
        session_ids=("s1",),
        source_message_ids=(f"m-{fid}",),
        **extra,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    "text",
    [
        "我同事的邮箱地址是 wang.lei2019@example.org",
        "我的 GitHub 账号是 cloud_walker_07",
        "我家路由器的管理地址是 http://192.168.31.1/admin",
        "我的车是 Model3，车牌号是 ABC1234",
    ],
)
def test_ids_in_a_chinese_sentence_do_not_make_it_english(text: str) -> None:
    assert detect_lang(text) == "zh"


@pytest.mark.parametrize(
    "text",
    [
        "我刚买了 Garmin Forerunner Music 和 Shokz OpenRun Pro",  # a Chinese frame, English names
        "帮我查一下 Kindle Paperwhite Signature Edition",
    ],
)
def test_a_chinese_frame_around_english_names_is_chinese(text: str) -> None:
    assert detect_lang(text) == "zh"


def test_english_stays_english_with_a_chinese_word() -> None:
    assert detect_lang("My favourite dish is 麻婆豆腐 with rice") == "en"
    assert detect_lang("Send it to kim.lee@example.com please") == "en"


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("我同事的邮箱地址是 wang.lei2019@example.org", "wang.lei2019@example.org"),
        ("我的 GitHub 账号是 cloud_walker_07", "GitHub cloud_walker_07"),
    ],
)
def test_a_chinese_fact_has_no_english_wording(
    en_nlp: Language, zh_nlp: Language, text: str, written: str
) -> None:
    msg = MessageRecord("m1", "u", "s", "user", text, T0, lang=detect_lang(text))
    ex = extract_chat(msg, en_nlp, zh_nlp)
    assert ex.facts, ex.rejections
    for fact in ex.facts:
        assert fact.lang == "zh"
        rest = fact.content
        for word in written.split():
            rest = rest.replace(word, "")
        assert not _ENGLISH_WORD.search(rest), fact.content
        assert fact.content.startswith("用户")


def test_a_new_taxonomy_topic_is_named_in_its_facts_language() -> None:
    zh = [
        _fact("a", "用户下个月去云南旅行", "zh"),
        _fact("b", "用户已经订好了去昆明的机票", "zh", minutes=2),
    ]
    en = [_fact("c", "The user booked a hotel for the trip", "en", minutes=3)]
    choices = assign_topics([*zh, *en], [], None)
    # one Topic, named by the majority (two Chinese facts, one English)
    assert {c.name for c in choices.values()} == {"旅行"}
    assert "travel" in topic_embedding_text("旅行")  # the other language stays an alias
    assert {c.name for c in assign_topics(en, [], None).values()} == {"travel"}


def test_an_existing_topic_in_one_language_takes_the_other_languages_facts() -> None:
    existing = [TopicRecord(topic_id="t-pets", name="宠物")]
    fact = _fact("d", "The user walks the dog every morning", "en")
    choice = assign_topics([fact], existing, None)["d"]
    assert (choice.name, choice.topic_id, choice.is_new) == ("宠物", "t-pets", False)


def test_a_chinese_topic_takes_the_place_as_written_and_no_engine_label() -> None:
    place = _fact("e", "用户周末常去苏州", "zh", entities=(EntityRef("苏州", "GPE", "Suzhou"),))
    assert assign_topics([place], [], None)["e"].name == "苏州"
    sized = _fact("f", "用户穿 42 码", "zh", slot="size", value="42")
    name = assign_topics([sized], [], None)["f"].name
    assert not _ENGLISH_WORD.search(name), name


def test_a_chinese_summary_has_no_english_wording() -> None:
    facts = [
        _fact("g", "用户每周六上午去练书法", "zh"),
        _fact("h", "用户喜欢用狼毫笔", "zh", minutes=5),
    ]
    drafts = build_summaries("书法", facts, now=T0 + timedelta(days=1))
    assert drafts
    for d in drafts:
        assert not _ENGLISH_WORD.search(d.content), d.content
