"""Facts have subjects (issue 37): a statement about a person, an animal or a thing of the
user's world is kept as that entity's Fact, never the user's; a clause without a subject of
its own takes the subject of the clause before it; a slot is (subject, attribute)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from spacy.language import Language

from extract.chat.facts import extract_chat
from extract.types import Extraction, FactDraft, MessageRecord

TS = datetime(2026, 5, 4, 9, 30, tzinfo=UTC)
USERS_OWN = ("preference", "identity", "behavior_pattern")


def run(en: Language, zh: Language, text: str) -> Extraction:
    return extract_chat(MessageRecord("m", "u", "s", "user", text, TS), en, zh)


def only(ex: Extraction) -> FactDraft:
    assert len(ex.facts) == 1, ex
    return ex.facts[0]


# --- another person's statement is their Fact ----------------------------------------------


@pytest.mark.parametrize(
    ("text", "subject", "kind", "content"),
    [
        ("我外婆今年82岁，膝盖不太好。", "外婆", "person", "用户的外婆今年82岁，膝盖不太好"),
        ("我女儿每周四下午上小提琴课。", "女儿", "person", "用户的女儿每周四下午上小提琴课"),
        ("我舍友阿杰每天凌晨两点才睡。", "舍友阿杰", "person", "用户的舍友阿杰每天凌晨两点才睡"),
        ("我家的猫咪团子特别怕吹风机。", "猫咪团子", "pet", "用户的猫咪团子特别怕吹风机"),
        ("My grandfather is 91.", "grandfather", "person", None),
        ("My landlord's phone number is 555 0142.", "landlord", "person", None),
        ("My daughter Ines plays the cello.", "daughter Ines", "person", None),
    ],
)
def test_another_person_s_statement_is_their_fact(
    en_nlp: Language, zh_nlp: Language, text: str, subject: str, kind: str, content: str | None
) -> None:
    fact = only(run(en_nlp, zh_nlp, text))
    assert fact.subject == subject and fact.subject_kind == kind, fact
    assert fact.kind not in USERS_OWN and fact.polarity == "neutral", fact
    if content is not None:
        assert fact.content == content
    else:
        assert fact.content.startswith("The user's "), fact.content


def test_the_wording_keeps_whose_fact_it_is(en_nlp: Language, zh_nlp: Language) -> None:
    fact = only(run(en_nlp, zh_nlp, "My husband still repairs clocks."))
    assert fact.content == "The user's husband still repairs clocks"


def test_a_constraint_of_someone_else_stays_a_constraint(
    en_nlp: Language, zh_nlp: Language
) -> None:
    en = only(run(en_nlp, zh_nlp, "My son is allergic to kiwi."))
    assert (en.subject, en.kind) == ("son", "constraint"), en
    assert en.content == "The user's son is allergic to kiwi"
    zh = only(run(en_nlp, zh_nlp, "我老婆对芒果过敏。"))
    assert (zh.subject, zh.kind, zh.content) == ("老婆", "constraint", "用户的老婆对芒果过敏")


def test_relation_synonyms_are_aliases(en_nlp: Language, zh_nlp: Language) -> None:
    en = only(run(en_nlp, zh_nlp, "My dad has high blood pressure."))
    assert en.subject == "dad" and {"father", "daddy"} <= set(en.subject_aliases), en
    zh = only(run(en_nlp, zh_nlp, "我老爸今年六十五岁。"))
    assert zh.subject == "老爸" and {"爸爸", "父亲"} <= set(zh.subject_aliases), zh


def test_the_user_with_someone_is_still_the_user(en_nlp: Language, zh_nlp: Language) -> None:
    for text in ("My husband and I rent a flat in Lyon.", "我和表姐都在学潜水。"):
        fact = only(run(en_nlp, zh_nlp, text))
        assert fact.subject is None, fact


# --- someone else's taste, anecdote, advice or outside routine is evidence only ------------


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("My landlord prefers bank transfers.", "landlord"),
        ("My grandfather still repairs clocks.", "grandfather"),
        ("My dad is training for a half marathon.", "dad"),
        ("我老爸最近在学钓鱼。", "老爸"),
        ("周晓岚喜欢收集邮票。", "周晓岚"),
        ("我大伯在青岛开出租车呢。", "大伯"),
        # a clause without a subject of its own is evidence about the carried subject
        ("我姐夫每周二去游泳，周末还去打网球。", "姐夫"),
        ("My nephew collects stamps, and he trades them online.", "nephew"),
    ],
)
def test_someone_else_s_taste_or_routine_is_evidence_only(
    en_nlp: Language, zh_nlp: Language, text: str, name: str
) -> None:
    ex = run(en_nlp, zh_nlp, text)
    assert not ex.facts, ex
    assert ex.rejections and all(
        r.reason.startswith(f"about someone else ({name})") for r in ex.rejections
    ), ex.rejections


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("我的小提琴老师每周四下午上课。", "小提琴老师"),
        ("我的私教每周一三五早上七点在健身房带课。", "私教"),
        ("My physio sees patients on Tuesday mornings at the Elm Street clinic.", "physio"),
        ("My piano tutor comes every Saturday at 10.", "piano tutor"),
    ],
)
def test_the_routine_of_someone_who_works_for_the_user_is_their_fact(
    en_nlp: Language, zh_nlp: Language, text: str, subject: str
) -> None:
    """A teacher's lesson day, a tutor's visit: when and where the user sees them. A person
    named by an occupation of the pack is a person, never the user."""
    fact = only(run(en_nlp, zh_nlp, text))
    assert (fact.subject, fact.subject_kind) == (subject, "person"), fact
    assert fact.kind not in USERS_OWN, fact


def test_the_taste_of_someone_who_works_for_the_user_is_evidence(
    en_nlp: Language, zh_nlp: Language
) -> None:
    for text in ("My piano tutor loves jazz.", "我的私教特别喜欢吃榴莲。"):
        ex = run(en_nlp, zh_nlp, text)
        assert not ex.facts and ex.rejections, ex


# --- a person named by name and relation --------------------------------------------------


def test_a_name_introduced_by_its_relation_zh(en_nlp: Language, zh_nlp: Language) -> None:
    ex = run(en_nlp, zh_nlp, "阿珍是我的室友，她的生日在十月。")
    assert [f.subject for f in ex.facts] == ["室友", "室友"], ex
    assert all("阿珍" in f.subject_aliases for f in ex.facts)
    assert ex.facts[1].content == "用户的室友阿珍的生日在十月"
    ex = run(en_nlp, zh_nlp, "我的导师叫老周，其办公室在三楼。")
    assert ex.facts[-1].subject == "导师" and "老周" in ex.facts[-1].subject_aliases, ex
    assert ex.facts[-1].content == "用户的导师老周的办公室在三楼"


def test_a_name_introduced_by_its_relation_en(en_nlp: Language, zh_nlp: Language) -> None:
    ex = run(en_nlp, zh_nlp, "Marco is my flatmate, he works as a ferry captain.")
    assert [f.subject for f in ex.facts] == ["flatmate", "flatmate"], ex
    assert all("Marco" in f.subject_aliases for f in ex.facts)
    assert ex.facts[1].content == "The user's flatmate Marco works as a ferry captain"
    # the introduction of someone outside the household is evidence; the name still
    # reaches the attribute that follows
    fact = only(run(en_nlp, zh_nlp, "Marco is my cousin, his job is ferry captain."))
    assert fact.subject == "cousin" and "Marco" in fact.subject_aliases, fact
    assert fact.slot == "cousin's job" and fact.value == "ferry captain", fact


# --- a clause without a subject of its own -------------------------------------------------


def test_the_subject_carries_to_a_clause_without_one_zh(en_nlp: Language, zh_nlp: Language) -> None:
    ex = run(en_nlp, zh_nlp, "我老公每周二去游泳，周末还去打网球。")
    assert [f.subject for f in ex.facts] == ["老公", "老公"], ex
    assert all(f.content.startswith("用户的老公") for f in ex.facts), ex
    assert not any(f.subject is None for f in ex.facts)


def test_the_subject_carries_to_a_clause_without_one_en(en_nlp: Language, zh_nlp: Language) -> None:
    ex = run(en_nlp, zh_nlp, "My son collects stamps, and he trades them online.")
    assert [f.subject for f in ex.facts] == ["son", "son"], ex
    assert ex.facts[1].content == "The user's son trades them online"


def test_the_user_s_own_clauses_do_not_carry_a_subject(en_nlp: Language, zh_nlp: Language) -> None:
    ex = run(en_nlp, zh_nlp, "我每天早上喝咖啡，下午也喝一杯。")
    assert all(f.subject is None for f in ex.facts), ex


# --- a slot is (subject, attribute) -------------------------------------------------------


def test_slots_are_per_subject(en_nlp: Language, zh_nlp: Language) -> None:
    uncle58 = only(run(en_nlp, zh_nlp, "我叔叔今年61岁。"))
    uncle59 = only(run(en_nlp, zh_nlp, "我叔叔今年62岁了。"))
    cousin = only(run(en_nlp, zh_nlp, "我堂妹今年19岁。"))
    assert uncle58.slot == uncle59.slot and uncle58.key == uncle59.key, (uncle58, uncle59)
    assert uncle59.value == "62岁"
    assert cousin.slot != uncle58.slot and cousin.key != uncle58.key
    mine = only(run(en_nlp, zh_nlp, "我的邮箱是 kite@example.org"))
    his = only(run(en_nlp, zh_nlp, "我表哥的邮箱是 pine@example.org"))
    assert mine.subject is None and his.subject == "表哥", (mine, his)
    assert mine.key != his.key and his.slot is not None and mine.slot != his.slot


def test_slots_are_per_subject_en(en_nlp: Language, zh_nlp: Language) -> None:
    a = only(run(en_nlp, zh_nlp, "My aunt is 70 and still teaches yoga."))
    b = only(run(en_nlp, zh_nlp, "My aunt is 71 now."))
    c = only(run(en_nlp, zh_nlp, "My niece is 8."))
    assert a.slot == b.slot and a.key == b.key and b.value == "71", (a, b)
    assert c.slot != a.slot


# --- things, events and places of the user's world -----------------------------------------


@pytest.mark.parametrize(
    ("text", "subject", "kind", "slot"),
    [
        ("陶艺课的上课地点在文化中心二楼。", "陶艺课", "thing", "陶艺课的上课地点"),
        ("骑行俱乐部的集合时间是早上六点半。", "骑行俱乐部", "org", "骑行俱乐部的集合时间"),
        ("花市的入口在东门。", "花市", "thing", "花市的入口"),
        ("马拉松赛的起点是市民广场。", "马拉松赛", "event", "马拉松赛的起点"),
        ("The choir's rehearsal room is B12.", "choir", "thing", "choir's rehearsal room"),
        ("The venue of the Spring Gala is the old theatre.", "Spring Gala", "thing", None),
    ],
)
def test_a_thing_with_an_attribute_and_value_is_its_fact(
    en_nlp: Language, zh_nlp: Language, text: str, subject: str, kind: str, slot: str | None
) -> None:
    fact = only(run(en_nlp, zh_nlp, text))
    assert fact.subject == subject, fact
    if kind != "thing":
        assert fact.subject_kind == kind, fact
    assert fact.kind not in USERS_OWN
    if slot is not None:
        assert fact.slot == slot, fact


def test_a_head_noun_cue_gives_the_kind() -> None:
    from extract.chat.subject import thing_kind

    assert thing_kind("书法展", "zh") == "event"
    assert thing_kind("社区医院", "zh") == "place"
    assert thing_kind("摄影协会", "zh") == "org"
    assert thing_kind("museum", "en") == "place"
    assert thing_kind("teapot", "en") == "thing"


# --- still no Fact ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "今天天气真不错。",
        "这家的包子挺好吃的。",
        "That concert was so much fun.",
        "我表哥现在多高了？",
        "Is my sister's flight delayed?",
        "要是我爷爷明年来的话，我们就去爬黄山。",
        "If my brother were here, he would fix the sink.",
        "I hope my cousin wins the chess final.",
        "我真希望我妹妹能找到喜欢的工作。",
    ],
)
def test_small_talk_questions_hypotheticals_and_wishes_give_no_fact(
    en_nlp: Language, zh_nlp: Language, text: str
) -> None:
    ex = run(en_nlp, zh_nlp, text)
    assert not [f for f in ex.facts if f.subject is not None], ex
    assert not ex.facts, ex


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("我表妹下个月8号办婚礼。", "表妹"),
        ("我表妹下周六要参加钢琴考级。", "表妹"),
        ("我婆婆下周六过来。", "婆婆"),
        ("My cousin is flying to Lisbon on June 9.", "cousin"),
        ("My cousin will fly to Lisbon on June 9.", "cousin"),
    ],
)
def test_a_dated_event_of_someone_else_is_a_plan(
    en_nlp: Language, zh_nlp: Language, text: str, subject: str
) -> None:
    fact = only(run(en_nlp, zh_nlp, text))
    assert (fact.subject, fact.kind) == (subject, "plan"), fact


def test_an_anaphor_takes_the_entity_not_its_attribute(en_nlp: Language, zh_nlp: Language) -> None:
    ex = run(en_nlp, zh_nlp, "我老公的电话是 139 0000 1111，他每天早上五点起床。")
    phone, habit = ex.facts
    assert phone.slot == "老公的电话" and phone.subject == "老公", phone
    assert habit.subject == "老公" and habit.slot is None, habit
    assert habit.content == "用户的老公每天早上五点起床"


def test_a_time_led_clause_carries_the_subject(en_nlp: Language, zh_nlp: Language) -> None:
    ex = run(en_nlp, zh_nlp, "我儿子在读初二，每天晚上九点睡觉。")
    assert [f.subject for f in ex.facts] == ["儿子", "儿子"], ex


def test_the_speaker_s_own_request_is_not_carried(en_nlp: Language, zh_nlp: Language) -> None:
    ex = run(en_nlp, zh_nlp, "我婆婆对花生过敏，记得提醒我订菜。")
    assert ex.facts[0].subject == "婆婆", ex
    assert all(f.subject is None for f in ex.facts[1:]), ex


def test_a_named_person_acting_is_that_person_s_fact(en_nlp: Language, zh_nlp: Language) -> None:
    fact = only(run(en_nlp, zh_nlp, "周晓岚患有哮喘。"))
    assert (fact.subject, fact.subject_kind, fact.kind) == ("周晓岚", "person", "constraint"), fact


def test_a_longer_name_of_a_thing_with_joining_words(en_nlp: Language, zh_nlp: Language) -> None:
    fact = only(run(en_nlp, zh_nlp, "茶与书法交流会的地点是西湖边的茶馆。"))
    assert (fact.subject, fact.subject_kind) == ("茶与书法交流会", "event"), fact
    assert fact.slot == "茶与书法交流会的地点"


def test_an_anaphor_after_a_bare_noun_phrase_is_that_thing(
    en_nlp: Language, zh_nlp: Language
) -> None:
    ex = run(en_nlp, zh_nlp, "我下周要去的陶瓷博览会，它的门票是六十元。")
    ticket = ex.facts[-1]
    assert ticket.subject == "陶瓷博览会" and ticket.slot == "陶瓷博览会的门票", ex
    assert ticket.content == "陶瓷博览会的门票是六十元"


def test_an_anaphor_s_attribute_is_its_slot(en_nlp: Language, zh_nlp: Language) -> None:
    ex = run(en_nlp, zh_nlp, "Rosa is my aunt, her phone number is 555 0199.")
    assert ex.facts[-1].subject == "aunt" and ex.facts[-1].slot == "aunt's phone number", ex


def test_a_statement_softened_by_ne_is_no_question(en_nlp: Language, zh_nlp: Language) -> None:
    fact = only(run(en_nlp, zh_nlp, "我大伯有高血压呢。"))
    assert fact.subject == "大伯", fact
    assert not run(en_nlp, zh_nlp, "我大伯在哪个城市呢").facts


def test_an_instruction_to_the_user_stays_the_user_s(en_nlp: Language, zh_nlp: Language) -> None:
    fact = only(run(en_nlp, zh_nlp, "牙医让我每半年洗一次牙。"))
    assert fact.subject is None and fact.content.startswith("牙医让用户"), fact


def test_a_topic_before_the_user_as_subject_is_no_subject(
    en_nlp: Language, zh_nlp: Language
) -> None:
    """ "<N>那边我换了，现在 …": the noun phrase is the topic, the user the clause's subject."""
    ex = run(en_nlp, zh_nlp, "理发师那边我换了，现在去南门的理发店。")
    assert ex.facts and all(f.subject is None for f in ex.facts), ex


@pytest.mark.parametrize(
    ("text", "subject", "value"),
    [
        ("我的律师姓陈，电话是 13800001111。", "律师", "13800001111"),
        ("我的牙医叫周岚，诊所地址是滨江路 8 号。", "牙医", "滨江路"),
    ],
)
def test_a_bare_attribute_after_a_person_is_theirs(
    en_nlp: Language, zh_nlp: Language, text: str, subject: str, value: str
) -> None:
    """ "…，电话是 Z": an attribute with no owner of its own belongs to whom the clause
    before spoke of; after the user's own clause it stays the user's."""
    ex = run(en_nlp, zh_nlp, text)
    facts = [f for f in ex.facts if value in f.content]
    assert facts and all(f.subject == subject for f in facts), ex
    own = run(en_nlp, zh_nlp, "我在杭州上班，电话是 13900002222。")
    assert [f.subject for f in own.facts if "139" in f.content] == [None], own
