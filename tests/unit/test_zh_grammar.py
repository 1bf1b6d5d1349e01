"""Chinese clause grammar (extract/chat/zh_grammar.py) and its hooks in fact extraction.

Every example is from another domain than the open scenarios, with other values: the
mechanisms are grammar, not word lists.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from spacy.language import Language

from corrections.conflicts import Claim, Known, conflicts
from extract.chat import zh_grammar as g
from extract.chat.facts import extract_chat
from extract.types import Extraction, Lang, MessageRecord

TS = datetime(2026, 5, 4, 8, 0, tzinfo=UTC)


def run(en: Language, zh: Language, text: str) -> Extraction:
    return extract_chat(MessageRecord("m", "u", "s", "user", text, TS, lang="zh"), en, zh)


def contents(ex: Extraction) -> list[str]:
    return [f.content for f in ex.facts]


# --- demonstratives -------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["那场讲座改到三楼了", "这家诊所周日休息", "那边的停车场太贵"])
def test_a_demonstrative_is_not_the_conjunction(text: str) -> None:
    assert g.demonstrative(text)


def test_the_conjunction_na_is_still_a_lead(en_nlp: Language, zh_nlp: Language) -> None:
    assert not g.demonstrative("那就改到周四吧")
    ex = run(en_nlp, zh_nlp, "那场讲座改到三楼了。")
    assert any(c.startswith("那场讲座") for c in contents(ex)), contents(ex)


# --- topic leads and requests for help ------------------------------------------------------


def test_a_topic_lead_is_a_filler_not_a_fact(en_nlp: Language, zh_nlp: Language) -> None:
    assert g.topic_lead_only("至于我，")
    assert g.topic_led("我们自己的话，")
    ex = run(en_nlp, zh_nlp, "我自己的话，每天骑车上班，通勤 40 分钟。")
    assert not any("的话" in c for c in contents(ex)), contents(ex)
    assert any("骑车" in c for c in contents(ex)), contents(ex)


@pytest.mark.parametrize(
    "text", ["想咨询下装修的事。", "我想请教一下报税的问题。", "问一下签证的事"]
)
def test_asking_for_help_states_nothing(en_nlp: Language, zh_nlp: Language, text: str) -> None:
    ex = run(en_nlp, zh_nlp, text)
    assert not ex.facts, contents(ex)
    assert any("help" in r.reason for r in ex.rejections)


def test_a_help_request_that_wraps_a_statement_keeps_it(en_nlp: Language, zh_nlp: Language) -> None:
    ex = run(en_nlp, zh_nlp, "想问一下：我下个月要去成都出差 3 天。")
    assert any("成都" in c for c in contents(ex)), contents(ex)


def test_a_noun_that_holds_a_request_verb_is_no_request(en_nlp: Language, zh_nlp: Language) -> None:
    assert g.opens_with_noun("介绍信还没开")
    assert not g.opens_with_noun("推荐几款耳机")
    ex = run(en_nlp, zh_nlp, "推荐人找了三位同事。")
    assert any("三位同事" in c for c in contents(ex)), ex


# --- the user's clause without 我 -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "mine"),
    [
        ("家里的路由器都放在书房", True),
        ("论文改了三遍", True),
        ("天气变了", False),  # nothing counted, no home: chit-chat
        ("老王买了两台空调", False),  # a person's name: someone else's action
        ("他订了三张票", False),
    ],
)
def test_implied_user(text: str, mine: bool) -> None:
    assert g.implied_user(text) is mine


def test_a_home_clause_is_kept(en_nlp: Language, zh_nlp: Language) -> None:
    ex = run(en_nlp, zh_nlp, "家里的路由器都放在书房，晚上会关掉。")
    assert any("路由器" in c for c in contents(ex)), ex


# --- keep clauses: a correction that keeps the rest -----------------------------------------


@pytest.mark.parametrize(
    ("text", "keep"),
    [
        ("时间不变", True),
        ("还是 9 点", True),
        ("座位数也一样", True),
        ("其余照旧", True),
        ("我还是喜欢游泳", False),  # the user's own statement, not a kept part
        ("老师换成了王老师", False),
    ],
)
def test_keep_clause(text: str, keep: bool) -> None:
    assert g.keep_clause(text) is keep


def test_a_change_with_kept_parts_is_one_fact(en_nlp: Language, zh_nlp: Language) -> None:
    ex = run(en_nlp, zh_nlp, "那场讲座改到三楼的报告厅了，时间不变，还是 9 点，人数也一样。")
    assert len(ex.facts) == 1, contents(ex)
    fact = ex.facts[0]
    assert "报告厅" in fact.content and "9 点" in fact.content
    assert fact.is_correction and fact.slot != "size"  # "9 点" is the kept part, no slot


def test_head_len_stops_before_the_kept_parts() -> None:
    text = "课程改到线上了，老师不变，还是周三"
    assert text[: g.head_len(text)] == "课程改到线上了"
    assert g.head_len("课程改到线上了") == len("课程改到线上了")


# --- bound goal and limit -------------------------------------------------------------------


def test_a_limit_without_subject_binds_to_the_goal(en_nlp: Language, zh_nlp: Language) -> None:
    assert g.bound_to_goal("想再办一张健身卡", "月费别超过 300")
    ex = run(en_nlp, zh_nlp, "我打算再办一张健身卡，月费别超过 300。")
    assert any("健身卡" in c and "300" in c for c in contents(ex)), contents(ex)
    assert not any(c.startswith("用户希望想") for c in contents(ex))


def test_a_limit_with_its_own_slot_or_subject_stays_apart() -> None:
    assert not g.bound_to_goal("想买一台投影仪", "我不想要太吵的")  # no number, has 我
    assert not g.bound_to_goal("投影仪放在客厅", "亮度不低于 3000")  # no goal before
    assert not g.bound_to_goal("想找个家教", "老师要有耐心、不要太严厉")  # no numeric limit


# --- route slots: where something goes -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "slot", "value"),
    [
        ("发票以后寄到公司前台", "发票:去向", "公司前台"),
        ("我的月报改发到邮箱", "月报:去向", "邮箱"),
        ("照片每周日晚上都存到移动硬盘里", "照片:去向", "移动硬盘"),
        ("快递以后都寄到单位", "快递:去向", "单位"),  # jieba tags 快递 a verb
    ],
)
def test_route_slot(text: str, slot: str, value: str) -> None:
    assert g.route_slot(text) == (slot, value)


@pytest.mark.parametrize("text", ["报告发现了问题", "问题存在很久了", "天气发生了变化"])
def test_no_route_slot_in_words_that_only_start_like_one(text: str) -> None:
    assert g.route_slot(text) is None


def test_a_later_route_on_the_same_thing_shares_the_slot(
    en_nlp: Language, zh_nlp: Language
) -> None:
    first = run(en_nlp, zh_nlp, "我们部门的考勤表每月底发到企业邮箱里。")
    later = run(en_nlp, zh_nlp, "考勤表以后也发内部网盘。")
    assert [f.slot for f in first.facts] == ["考勤表:去向"]
    assert [f.slot for f in later.facts] == ["考勤表:去向"]
    assert first.facts[0].value != later.facts[0].value


def test_a_group_move_is_not_the_users_home(en_nlp: Language, zh_nlp: Language) -> None:
    ex = run(en_nlp, zh_nlp, "我们部门整体搬到了新园区。")
    assert all(f.slot != "home_city" for f in ex.facts), [(f.slot, f.content) for f in ex.facts]
    ex = run(en_nlp, zh_nlp, "我已经搬到了城东。")
    assert [f.slot for f in ex.facts] == ["home_city"]


# --- conflicts: a correction restates one kind of fact --------------------------------------


def known(
    fid: str, content: str, kind: str, slot: str | None, t: datetime, vec: list[float],
    sources: tuple[str, ...],
) -> Known:  # fmt: skip
    return Known(
        fact_id=fid, content=content, kind=kind, polarity="neutral", slot=slot, valid_from=t,
        embedding=vec, sources=sources,
    )  # fmt: skip


def claim(
    fid: str, content: str, slot: str | None, t: datetime, vec: list[float],
    sources: tuple[str, ...],
) -> Claim:  # fmt: skip
    """A cued correction (its clause says something changed)."""
    return Claim(
        fact_id=fid, content=content, kind="fact", polarity="neutral", slot=slot, valid_from=t,
        embedding=vec, sources=sources, correction=True,
    )  # fmt: skip


def test_a_correction_prefers_the_fact_of_its_own_kind_on_a_tie() -> None:
    t0 = datetime(2026, 3, 1, 9, tzinfo=UTC)
    vec = [1.0, 0.1, 0.0]
    state = known("a", "办公室的打印机都连在旧服务器上", "fact", None, t0, vec, ("m1",))
    habit = known("b", "用户平时用手机打印文件", "behavior_pattern", None, t0, vec, ("m1",))
    new = claim(
        "new", "用户把整套打印系统换成 CUPS 了", "系统", t0 + timedelta(days=5), vec, ("m2",)
    )
    assert conflicts([new], [habit, state], threshold=0.8) == {"new": "a"}


def test_a_general_change_defers_to_the_slot_claim_of_its_message() -> None:
    t0 = datetime(2026, 3, 1, 9, tzinfo=UTC)
    vec = [1.0, 0.1, 0.0]
    route = known("a", "用户等人的考勤表发到企业邮箱", "fact", "考勤表:去向", t0, vec, ("m1",))
    other = known("b", "报销单都在 SAP 里审批", "fact", None, t0, vec, ("m2",))
    later = t0 + timedelta(days=9)
    general = claim("g", "用户等人部门整体迁到了网盘", None, later, vec, ("m3",))
    specific = claim("s", "考勤表也发网盘", "考勤表:去向", later, vec, ("m3",))
    out = conflicts([general, specific], [route, other], threshold=0.8)
    assert "g" not in out  # the slot claim says this change; "other" stays


def test_no_need_to_is_an_avoiding_constraint(en_nlp: Language, zh_nlp: Language) -> None:
    ex = run(en_nlp, zh_nlp, "不用帮我把发票整理成表格。")
    assert [(f.kind, f.polarity) for f in ex.facts] == [("constraint", "avoids")]


# --- carry-over ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("new", "old", "out"),
    [
        (
            "那场聚会改成在江边吃了，人数不变，还是 8 个人",
            "5月3日晚上用户在老街火锅订了位子，8 个人",
            "5月3日晚上用户在江边订了位子，8 个人",
        ),
        ("体检改到周五了，时间不变", "用户的体检约在周三上午", "用户的体检约在周五上午"),
        ("讲座改在图书馆了，其他照旧", "用户周三下午在礼堂听讲座", "用户周三下午在图书馆听讲座"),
    ],
)
def test_carry_over_puts_the_change_into_the_old_fact(new: str, old: str, out: str) -> None:
    assert g.carry_over(new, old) == out


def test_no_carry_over_without_a_kept_part_or_a_clear_old_value() -> None:
    assert g.carry_over("讲座改在图书馆了", "用户周三下午在礼堂听讲座") is None
    assert g.carry_over("讲座改在图书馆了，时间不变", "用户在礼堂和在操场各有一场讲座") is None


# --- clauses with a subject of their own; suppositions ----------------------------------------


@pytest.mark.parametrize(
    ("text", "own"),
    [
        ("review 在周四下午", True),
        ("发票都在财务的 OA 系统里", True),
        ("小林在北京", False),  # a person's name: someone else's whereabouts
        ("时间不变", False),
        ("其中一位是我的同学", False),
    ],
)
def test_own_subject(text: str, own: bool) -> None:
    assert g.own_subject(text) is own


def test_a_clause_with_its_own_subject_is_its_own_fact(en_nlp: Language, zh_nlp: Language) -> None:
    ex = run(
        en_nlp,
        zh_nlp,
        "我们组的 OKR 每季度定一次，review 在周四下午，文档都在 Notion 的团队空间里。",
    )
    assert len(ex.facts) == 3, contents(ex)


@pytest.mark.parametrize(
    ("text", "supposes"),
    [
        ("如果明年加薪了，我也许会换一台车", True),
        ("要是房租再涨，我说不定会搬走", True),
        ("如果下雨，就别安排户外活动", False),  # a standing rule, not a supposition
    ],
)
def test_speculative(text: str, supposes: bool) -> None:
    assert g.speculative(text) is supposes


def test_a_supposition_is_no_fact(en_nlp: Language, zh_nlp: Language) -> None:
    ex = run(en_nlp, zh_nlp, "如果以后 Rust 普及了，我可能会把 Go 服务全重写。")
    assert not ex.facts, contents(ex)
    assert any("hypothetical" in r.reason for r in ex.rejections)


def test_the_pipeline_carries_the_change_into_the_replaced_fact() -> None:
    from extract.types import FactDraft
    from graph.fact_writes import NewFact
    from service.drafts import carried

    def draft(content: str, lang: Lang = "zh") -> FactDraft:
        return FactDraft(
            content=content, kind="fact", source_message_ids=("m3",), time_start=TS,
            time_end=TS, lang=lang, key=f"fact:{content}",
        )  # fmt: skip

    change = draft("那场聚会改成在江边吃了，人数不变")
    alone = draft("用户下周去杭州出差")
    new = [NewFact("n1", change, None, (change,)), NewFact("n2", alone, None, (alone,))]
    old = {"o1": "用户周六晚上的聚会定在老街火锅，8 个人", "o2": "用户下周去苏州出差"}
    out = carried(new, {"n1": "o1", "n2": "o2"}, old)
    assert out[0].draft.content == "用户周六晚上的聚会定在江边，8 个人"
    assert [p.content for p in out[0].parts] == [out[0].draft.content]
    assert out[1].draft.content == "用户下周去杭州出差"  # no kept part: its own words


def test_the_users_family_move_is_the_users_home() -> None:
    from extract.chat.slots import slot_zh

    found = slot_zh("我家上个月搬到了城西")
    assert found is not None and found.key == "home_city"
