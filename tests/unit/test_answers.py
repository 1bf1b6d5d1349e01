"""Short answers bind to the assistant's question before them (extract/chat/answers.py):
a wh-question's frame filled by the value, a yes/no question's proposition with the
answer's adverb, a refusal stores nothing of the guess, a pick among listed options names
the option; a turn that is not an answer is left to the clause analysis."""

from __future__ import annotations

import pickle
from datetime import UTC, datetime

import pytest
from spacy.language import Language

from extract.chat.facts import extract_chat, extract_chats
from extract.chat.question import listed_options, with_questions
from extract.types import Extraction, MessageRecord
from text.lang import detect_lang

TS = datetime(2026, 4, 7, 9, 0, tzinfo=UTC)


def _answer(asked: str | None, text: str) -> MessageRecord:
    return MessageRecord(
        "u1",
        "u",
        "s",
        "user",
        text,
        TS,
        lang=detect_lang(text),
        asked=asked,
        asked_id="a1" if asked else None,
    )


def _run(asked: str | None, text: str, en: Language, zh: Language) -> Extraction:
    one = extract_chat(_answer(asked, text), en, zh)
    assert extract_chats([_answer(asked, text)], en, zh) == [one]  # both paths agree
    return one


def _content(ex: Extraction) -> list[str]:
    return [f.content for f in ex.facts]


@pytest.mark.parametrize(
    ("asked", "text", "words"),
    [
        (
            "好的。您希望露营地离湖边多远？",
            "开车半小时以内吧",
            ["用户", "露营地", "湖边", "开车半小时以内"],
        ),
        ("你家的狗几岁了？", "快五岁了吧", ["用户", "狗", "五岁"]),
        ("您需要订几个房间？", "两间", ["用户需要订两间房间"]),
        ("您平时喜欢什么样的咖啡？", "不太甜的", ["用户", "不太甜的咖啡"]),
        ("孩子在哪个幼儿园上学？", "阳光幼儿园", ["孩子在阳光幼儿园上学"]),
    ],
)
def test_wh_answer_zh_fills_the_frame(
    asked: str, text: str, words: list[str], en_nlp: Language, zh_nlp: Language
) -> None:
    ex = _run(asked, text, en_nlp, zh_nlp)
    assert len(ex.facts) == 1, ex
    fact = ex.facts[0]
    assert all(w in fact.content for w in words), fact.content
    assert not fact.content.endswith("吧") and "？" not in fact.content
    assert "您" not in fact.content and "你" not in fact.content
    assert fact.source_message_ids == ("u1", "a1")


@pytest.mark.parametrize(
    ("asked", "text", "expected"),
    [
        ("What size of pizza do you usually order?", "a large one", "The user usually orders"),
        ("What is your shirt size?", "medium, I think", "The user's shirt size is medium"),
        ("Which bakery do you go to?", "the one near the park", "the bakery near the park"),
        ("What time should I book the tennis court for?", "6pm please", "for 6pm"),
        ("How many guests will come to the party?", "twelve", "twelve guests"),
        ("What's your rabbit's name?", "Clover", "The user's rabbit's name is Clover"),
    ],
)
def test_wh_answer_en_fills_the_frame(
    asked: str, text: str, expected: str, en_nlp: Language, zh_nlp: Language
) -> None:
    ex = _run(asked, text, en_nlp, zh_nlp)
    assert len(ex.facts) == 1, ex
    assert expected in ex.facts[0].content, ex.facts[0].content
    assert "you" not in ex.facts[0].content.lower().split()
    assert ex.facts[0].source_message_ids == ("u1", "a1")


def test_yes_answer_en_states_the_proposition_with_its_adverb(
    en_nlp: Language, zh_nlp: Language
) -> None:
    ex = _run(
        "Should I reserve a quiet table for your team lunches?", "Yes, always.", en_nlp, zh_nlp
    )
    assert _content(ex) == ["The user always wants to reserve a quiet table for their team lunches"]
    assert ex.facts[0].source_message_ids == ("u1", "a1")
    ex = _run("Do you prefer paper receipts?", "yeah, usually", en_nlp, zh_nlp)
    assert _content(ex) == ["The user usually prefers paper receipts"]
    ex = _run("Would you like a reminder the day before?", "sure", en_nlp, zh_nlp)
    assert _content(ex) == ["The user would like a reminder the day before"]
    ex = _run("Is your train in the evening?", "yep", en_nlp, zh_nlp)
    assert _content(ex) == ["The user's train is in the evening"]
    ex = _run("Should I remind you to stretch every hour?", "yes please", en_nlp, zh_nlp)
    assert _content(ex) == ["The user wants the assistant to remind them to stretch every hour"]


def test_yes_answer_zh_states_the_proposition(en_nlp: Language, zh_nlp: Language) -> None:
    ex = _run("需要我帮您预约每周六上午的钢琴课吗？", "好的，以后都这样", en_nlp, zh_nlp)
    assert len(ex.facts) == 1
    content = ex.facts[0].content
    assert content.startswith("用户") and "钢琴课" in content and "以后" in content, content
    assert "我" not in content and "您" not in content and "吗" not in content
    ex = _run("要不要给您的车预约保养？", "要", en_nlp, zh_nlp)
    assert _content(ex) == ["用户要给用户的车预约保养"] or all(
        w in _content(ex)[0] for w in ("用户", "车", "预约保养")
    )


@pytest.mark.parametrize(
    ("asked", "text"),
    [
        ("You're a night owl, right?", "not really"),
        ("Should I renew your parking permit?", "no"),
        ("你是左撇子吧？", "不是"),
        ("要不要帮您订一束花？", "不用了"),
    ],
)
def test_refusal_stores_nothing_of_the_guess(
    asked: str, text: str, en_nlp: Language, zh_nlp: Language
) -> None:
    ex = _run(asked, text, en_nlp, zh_nlp)
    assert ex.facts == ()
    assert ex.rejections and ex.rejections[0].reason.startswith("declines")


def test_no_to_an_offer_of_help_stores_nothing(en_nlp: Language, zh_nlp: Language) -> None:
    for asked, text in (
        ("还有什么需要帮忙的吗？", "没有了，谢谢"),
        ("Anything else I can do?", "no thanks"),
    ):
        ex = _run(asked, text, en_nlp, zh_nlp)
        assert ex.facts == () and ex.rejections[0].reason.startswith("declines"), ex


def test_refusal_with_its_own_content_keeps_that_content(
    en_nlp: Language, zh_nlp: Language
) -> None:
    ex = _run("Do you want me to add sugar?", "No, I prefer honey.", en_nlp, zh_nlp)
    assert _content(ex) == ["The user prefers honey"]
    assert ex.facts[0].source_message_ids == ("u1",)  # the user's own statement


def test_choice_among_listed_options(en_nlp: Language, zh_nlp: Language) -> None:
    asked = (
        "I found three gyms nearby:\n1. Ironworks, open 24/7\n2. Blue Lotus Yoga Studio\n"
        "3. City Pool. Which one sounds good?"
    )
    assert listed_options(asked) == ("Ironworks, open 24/7", "Blue Lotus Yoga Studio", "City Pool")
    ex = _run(asked, "let's go with the second one", en_nlp, zh_nlp)
    assert _content(ex) == ["The user chose Blue Lotus Yoga Studio"]
    assert ex.facts[0].source_message_ids == ("u1", "a1")
    ex = _run(asked, "the pool, I think", en_nlp, zh_nlp)
    assert _content(ex) == ["The user chose City Pool"]
    zh = "给您挑了几个周末活动：A) 陶艺体验 B) 郊外骑行 C) 室内攀岩。您想参加哪个？"
    ex = _run(zh, "就第三个吧", en_nlp, zh_nlp)
    assert _content(ex) == ["用户选择了室内攀岩"]


def test_choice_between_alternatives_in_the_question(en_nlp: Language, zh_nlp: Language) -> None:
    ex = _run("您想学油画还是水彩？", "水彩吧", en_nlp, zh_nlp)
    assert _content(ex) == ["用户选择了水彩"]
    ex = _run(
        "Would you like the morning class or the evening class?", "the evening one", en_nlp, zh_nlp
    )
    assert _content(ex) == ["The user chose the evening class"]


@pytest.mark.parametrize(
    ("asked", "text"),
    [
        (None, "Yes, always."),  # no question before it
        ("您希望露营地离湖边多远？", "我上个月刚搬到成都，现在在找房子"),  # a statement of its own
        ("How far should the campsite be from the lake?", "I moved to Denver last spring"),
        ("Anything else?", "I need a quiet room for the night of the 12th"),
        ("What can I do for you?", "book a table for two tonight"),
        ("Is there anything else I can help with?", "Yes, I need a taxi at 7 tomorrow"),
        ("Hi Sam, how are you doing?", "pretty good, just busy"),  # small talk
        ("Can you tell me more about it?", "sure"),  # a request to the user
        ("What did you think of the concert?", "loved it"),  # a clause of its own
    ],
)
def test_a_turn_that_is_not_an_answer_is_unaffected(
    asked: str | None, text: str, en_nlp: Language, zh_nlp: Language
) -> None:
    bound = _run(asked, text, en_nlp, zh_nlp)
    alone = _run(None, text, en_nlp, zh_nlp)
    assert bound == alone


def test_with_questions_takes_the_assistant_turn_just_before() -> None:
    def m(mid: str, role: str, minute: int, session: str = "s") -> MessageRecord:
        return MessageRecord(mid, "u", session, role, f"text {mid}", TS.replace(minute=minute))

    out = with_questions(
        [
            m("a1", "assistant", 1),
            m("u1", "user", 2),
            m("u2", "user", 3),  # a user turn between: no question
            m("a2", "assistant", 4),
            m("x1", "user", 5, session="other"),  # another session: no question
            m("u3", "user", 6),
        ]
    )
    asked = {r.message_id: r.asked_id for r in out}
    assert asked == {"a1": None, "u1": "a1", "u2": None, "a2": None, "x1": None, "u3": "a2"}
    assert [r.message_id for r in out] == ["a1", "u1", "u2", "a2", "x1", "u3"]
    assert pickle.loads(pickle.dumps(out[1])) == out[1]  # crosses to the extractor process


def test_a_pick_binds_to_options_listed_without_a_question(
    en_nlp: Language, zh_nlp: Language
) -> None:
    asked = "Three rentals nearby: 1) Fjord Kayaks at 9am, 2) Bay Paddle at noon, 3) Isle Rowing."
    assert _content(_run(asked, "Let's go with the second one.", en_nlp, zh_nlp)) == [
        "The user chose Bay Paddle at noon"
    ]
    asked_zh = "有三家琴行：1. 松声琴行，周三晚上；2. 竹韵琴行，周五下午；3. 听涛琴行，周日上午。"
    said = _content(_run(asked_zh, "就第三个吧，离家近。", en_nlp, zh_nlp))
    assert any("听涛琴行" in s and s.startswith("用户选择了") for s in said), said
    assert listed_options(asked_zh)[1] == "竹韵琴行，周五下午"


def test_a_deferral_to_a_yes_no_question_fills_nothing(en_nlp: Language, zh_nlp: Language) -> None:
    """In "要不要…几盆…？" 几 is "a few", not a question word: "再说吧" fills no frame."""
    assert not _run("要不要再订几盆多肉，放在阳台上？", "再说吧，先不急。", en_nlp, zh_nlp).facts
    assert _content(_run("您一周去几次健身房？", "三次吧。", en_nlp, zh_nlp)) == [
        "用户一周去三次健身房"
    ]
