"""Issue 37, the memory of the user's world, over GraphQL through the ASGI app.

One user tells the assistant about the people, places and things of their life, one
session per dialogue, on one day; the recalls come 18 days later (`now`), when none of it is
recent conversation. The dialogues are the issue's own; the tests assert behaviour (the key
values a Fact holds, its sources, its subject, what a recall shows), never wording.

The GraphQL of the user's world is written as issue 37 item 2 describes it: `Fact.subject
{ name }` and `entities(userId)` with `name kind aliases facts { content }`. If the API
names them otherwise, adjust SUBJECTS, ENTITIES and the two helpers that read them.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from core.settings import Settings
from service.runtime import Runtime
from tests.integration.conftest import reset
from tests.integration.helpers import ADD, gql

USER = "u-world"
NOW = "2026-11-20T09:00:00+00:00"  # 18 days after the dialogues

FACTS = """query($u: String!) { facts(userId: $u, includeInactive: true, limit: 100) {
  id content kind validity sourceMessageIds } }"""
# a Fact's subject: null (or the user) for the user's own facts
SUBJECTS = """query($u: String!) { facts(userId: $u, includeInactive: true, limit: 100) {
  id subject { name } } }"""
ENTITIES = """query($u: String!) { entities(userId: $u) {
  name kind aliases facts { content } } }"""
MEMORY = """query($u: String!, $q: String!, $now: DateTime) {
  memory(userId: $u, query: $q, now: $now) {
    formattedContext
    shortTermContext { id sourceMessageIds sourceFactIds }
    midTermContext { id sourceMessageIds sourceFactIds }
    longTermUserContext { id sourceMessageIds sourceFactIds } } }"""

# (id, session, role, content); one day, a minute apart
DIALOGUES: list[tuple[str, str, str, str]] = [
    ("w1", "uncle", "user", "我舅舅今年58岁，血压有点高。"),
    ("w2", "boss", "user", "我老板的微信号是 lihua_1988。"),
    ("w3", "club", "user", "读书会的地点在南山图书馆。"),
    ("w4", "roommate", "user", "我室友小陈每天晚上都要点烧烤。"),
    ("w5", "hotel", "assistant", "您希望酒店离地铁站多远？"),
    ("w6", "hotel", "user", "步行十分钟以内吧。"),
    ("w7", "flight", "assistant", "Should I book a vegetarian meal on your flights?"),
    ("w8", "flight", "user", "Yes, always."),
    ("w9", "dad", "user", "My dad is allergic to shellfish, so no seafood at his birthday dinner."),
    ("w10", "cousin", "user", "我表弟今年36岁。"),
    ("w11", "cousin", "user", "我表弟的邮箱是 biaodi@example.com。"),
    ("w12", "cousin", "user", "我今年30岁。"),
    # questions to the agent: extraction gives no Fact, the evidence floor keeps them
    ("w13", "asked", "user", "你知道蓝鲸书屋周末几点关门吗？"),
    ("w14", "asked", "user", "Do you know if the Harbour Lane pool is open on Sundays?"),
]


def messages() -> list[dict[str, Any]]:
    return [
        {
            "id": mid,
            "userId": USER,
            "sessionId": session,
            "role": role,
            "content": content,
            "timestamp": f"2026-11-02T09:{n:02d}:00+00:00",
        }
        for n, (mid, session, role, content) in enumerate(DIALOGUES, 1)
    ]


@dataclass
class World:
    client: httpx.AsyncClient
    facts: list[dict[str, Any]]  # every Fact of the user, inactive ones too


def data(body: dict[str, Any]) -> dict[str, Any]:
    assert not body.get("errors"), body.get("errors")
    result: dict[str, Any] = body["data"]
    return result


@pytest.fixture(scope="module")
async def world(settings: Settings, runtime: Runtime) -> AsyncIterator[World]:
    """The dialogues ingested once (sync processing) for the module's tests."""
    from api.app import create_app

    await reset(runtime.memory.db)
    app = create_app(settings, runtime)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        res = data(await gql(c, ADD, m=messages()))["addMessages"]
        assert res["errors"] == [] and len(res["accepted"]) == len(DIALOGUES), res
        facts = data(await gql(c, FACTS, u=USER))["facts"]
        yield World(c, facts)


def has(text: str, sub: str) -> bool:
    return sub.casefold() in text.casefold()


def active(w: World, *subs: str) -> list[dict[str, Any]]:
    """The active Facts holding every one of `subs`."""
    return [
        f for f in w.facts if f["validity"] == "active" and all(has(f["content"], s) for s in subs)
    ]


def shown(w: World) -> str:
    return "\n".join(f"{f['validity']}: {f['content']} {f['sourceMessageIds']}" for f in w.facts)


async def subjects(w: World) -> dict[str, str | None]:
    """Fact id -> the name of its subject (None: the user)."""
    rows = data(await gql(w.client, SUBJECTS, u=USER))["facts"]
    return {r["id"]: (r["subject"] or {}).get("name") for r in rows}


def about_user(name: str | None) -> bool:
    return name is None or name.strip().casefold() in ("user", "the user", "用户", "我")


async def entities(w: World) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = data(await gql(w.client, ENTITIES, u=USER))["entities"]
    return rows


def named(entity: dict[str, Any], *names: str) -> bool:
    """The entity's name or one of its aliases holds one of `names`."""
    return any(has(n, want) for n in [entity["name"], *entity["aliases"]] for want in names)


async def said(w: World, user: str, texts: list[str], day: str) -> None:
    """The user's turns, one session, a minute apart on ``day``, in one addMessages."""
    batch = [
        {"id": f"{user}-{n}", "userId": user, "sessionId": "s1", "role": "user", "content": text,
         "timestamp": f"{day}T09:{n:02d}:00+00:00"}
        for n, text in enumerate(texts, 1)
    ]  # fmt: skip
    res = data(await gql(w.client, ADD, m=batch))["addMessages"]
    assert res["errors"] == [], res


async def recall(w: World, query: str) -> str:
    """memory(query, now) 18 days later: its formatted context, the cited ids blanked (a
    value such as "36" must not be found inside a hex id)."""
    r = data(await gql(w.client, MEMORY, u=USER, q=query, now=NOW))["memory"]
    ids = {
        i
        for section in ("shortTermContext", "midTermContext", "longTermUserContext")
        for item in r[section]
        for i in [item["id"], *item["sourceMessageIds"], *item["sourceFactIds"]]
        if i
    }
    context: str = r["formattedContext"]
    for i in sorted(ids, key=len, reverse=True):
        context = context.replace(i, "#")
    return re.sub(r"\[[^\]\n]*\]", "[#]", context)  # any other bracketed reference


async def test_an_uncles_age_is_his_fact_and_recalled_by_naming_him(world: World) -> None:
    facts = active(world, "58")
    assert facts, shown(world)
    by_id = await subjects(world)
    assert any(has(by_id[f["id"]] or "", "舅舅") for f in facts), [by_id[f["id"]] for f in facts]
    uncle = [e for e in await entities(world) if named(e, "舅舅")]
    assert uncle, "no Entity 舅舅"
    assert any(e["kind"].casefold() == "person" for e in uncle), uncle
    assert any(has(f["content"], "58") for e in uncle for f in e["facts"])
    assert "58" in await recall(world, "我舅舅多大年纪了？")


async def test_the_bosss_wechat_id_is_found(world: World) -> None:
    facts = active(world, "lihua_1988")
    assert facts, shown(world)
    by_id = await subjects(world)
    assert any(has(by_id[f["id"]] or "", "老板") for f in facts)
    assert "lihua_1988" in await recall(world, "帮我加一下老板的微信")


async def test_a_place_of_the_reading_club_is_the_clubs_fact(world: World) -> None:
    facts = active(world, "南山图书馆")
    assert facts, shown(world)
    by_id = await subjects(world)
    assert any(has(by_id[f["id"]] or "", "读书会") for f in facts)
    assert "南山图书馆" in await recall(world, "读书会在哪里？")


async def test_a_roommates_habit_is_never_the_users_own(world: World) -> None:
    facts = active(world, "烧烤")
    assert facts, shown(world)
    assert all(has(f["content"], "小陈") for f in facts), [f["content"] for f in facts]
    by_id = await subjects(world)
    for f in facts:
        name = by_id[f["id"]]
        assert not about_user(name), f"{f['content']} filed as the user's ({f['kind']})"
        assert has(name or "", "小陈") or has(name or "", "室友")


async def test_a_short_answer_takes_its_attribute_from_the_question(world: World) -> None:
    facts = active(world, "酒店", "地铁站", "十分钟")
    assert facts, shown(world)
    # the assistant's question as context, the user's answer as the statement
    assert any({"w5", "w6"} <= set(f["sourceMessageIds"]) for f in facts), facts


async def test_yes_always_to_a_question_stores_the_vegetarian_meal(world: World) -> None:
    facts = active(world, "vegetarian")
    assert facts, shown(world)
    assert any({"w7", "w8"} <= set(f["sourceMessageIds"]) for f in facts), facts
    assert has(await recall(world, "book meals for my flight"), "vegetarian")


async def test_a_fathers_allergy_is_his_and_shapes_his_birthday_dinner(world: World) -> None:
    facts = [
        f
        for f in active(world, "shellfish")
        if has(f["content"], "father") or has(f["content"], "dad")
    ]
    assert facts, shown(world)
    by_id = await subjects(world)
    names = [by_id[f["id"]] or "" for f in facts]
    assert any(has(n, "father") or has(n, "dad") for n in names), names
    assert has(await recall(world, "plan dad's birthday dinner"), "shellfish")


async def test_a_cousins_age_comes_before_his_email_and_never_replaces_the_users(
    world: World,
) -> None:
    cousin, own = active(world, "36"), active(world, "30")
    assert cousin and own, shown(world)  # one never supersedes the other
    assert not [f for f in world.facts if f["validity"] != "active" and has(f["content"], "岁")]
    by_id = await subjects(world)
    assert any(has(by_id[f["id"]] or "", "表弟") for f in cousin)
    assert any(about_user(by_id[f["id"]]) for f in own)
    email = active(world, "biaodi@example.com")
    assert email and not any(has(f["content"], "the user") for f in email)  # one language
    context = await recall(world, "我表弟现在多大了？")
    age, mail = context.find("36"), context.find("biaodi@")
    assert age >= 0 and (mail < 0 or age < mail), context


async def test_the_entities_of_the_users_world_hold_their_facts(world: World) -> None:
    found = await entities(world)
    for names, value in [
        (("舅舅",), "58"),
        (("表弟",), "36"),
        (("表弟",), "biaodi@example.com"),
        (("读书会",), "南山图书馆"),
        (("小陈", "室友"), "烧烤"),
        (("father", "dad"), "shellfish"),
    ]:
        holders = [e for e in found if named(e, *names)]
        assert any(has(f["content"], value) for e in holders for f in e["facts"]), (
            names,
            value,
            [(e["name"], e["aliases"]) for e in found],
        )


async def test_every_user_turn_stays_evidence_a_recall_can_find(world: World) -> None:
    # the premise: questions to the agent give no Fact
    assert not active(world, "蓝鲸书屋") and not active(world, "Harbour Lane"), shown(world)
    assert "蓝鲸书屋" in await recall(world, "蓝鲸书屋周末开到几点？")
    assert has(await recall(world, "Harbour Lane pool opening hours"), "Harbour Lane")


TOP = """query($u: String!, $q: String!, $now: DateTime, $n: Int) {
  memory(userId: $u, query: $q, now: $now, limit: $n) { midTermContext { content } } }"""
# one user who says much about one matter and little about another
TWO = [
    "我姑父今年61岁。",
    "我姑父住在绍兴柯桥。",
    "我姑父退休前是中学物理老师。",
    "我姑父的手机号是13900002222。",
    "我姑父每周六去钓鱼。",
    "陶艺课在文化宫三楼上。",
    "I keep my bike at the Elm Street garage.",
    "My bike is a green Brompton.",
    "My bike has a Shimano hub and a front basket.",
    "My locker code at the gym is 4471.",
]


@pytest.mark.parametrize(
    ("query", "values"),
    [
        ("我姑父今年多大了？另外，陶艺课在哪儿上？", ("61", "文化宫")),
        ("What kind of bike do I have? And what is my gym locker code?", ("Brompton", "4471")),
    ],
)
async def test_a_query_of_two_questions_finds_both_answers_first(
    world: World, query: str, values: tuple[str, str]
) -> None:
    """Each question is ranked on its own: the first three items hold both answers, though
    the user said far more about the first matter than about the second."""
    user = "u-two-questions"
    await said(world, user, TWO, "2026-11-03")
    r = data(await gql(world.client, TOP, u=user, q=query, now=NOW, n=3))["memory"]
    shown = " | ".join(it["content"] for it in r["midTermContext"])
    assert all(has(shown, v) for v in values), shown


PEOPLE = [
    "My landlord is Pieter Visser; he's 67 and lives in Utrecht.",
    "He is allergic to cats, so no cat hair on the sofa when he visits.",
    "我的 yoga 教练 Priya 是印度人，今年 41 岁。",
    "我今年 33 岁。",
]


async def test_people_named_by_apposition_pronoun_and_a_latin_name_keep_their_facts(
    world: World,
) -> None:
    """ "my <P> is N; he's 67", then "He is allergic …" in the next turn, and a Chinese role
    with Latin words and a name: each Fact is that person's, and never the user's age."""
    user = "u-people"
    await said(world, user, PEOPLE, "2026-11-04")
    rows = data(await gql(world.client, SUBJECTS, u=user))["facts"]
    facts = {f["id"]: f for f in data(await gql(world.client, FACTS, u=user))["facts"]}
    by_value = {
        v: [(r["subject"] or {}).get("name") for r in rows if has(facts[r["id"]]["content"], v)]
        for v in ("67", "cats", "41", "33")
    }
    assert by_value["67"] and all(n and has(n, "landlord") for n in by_value["67"]), by_value
    assert by_value["cats"] and all(n and has(n, "landlord") for n in by_value["cats"])
    assert by_value["41"] and all(n and has(n, "教练") for n in by_value["41"]), by_value
    assert by_value["33"] and all(about_user(n) for n in by_value["33"]), by_value
    context = data(await gql(world.client, MEMORY, u=user, q="How old is my landlord?", now=NOW))
    assert has(context["memory"]["formattedContext"], "67")


ASIDE = [
    "I renew my car insurance every March with Lumen Mutual.",
    "My sister's insurer is Halden Direct, and she pays it monthly.",
    "My son is allergic to sesame.",
]


async def test_someone_elses_memory_stays_aside_from_a_query_about_the_users_own(
    world: World,
) -> None:
    """A first-person query about the user's own matters is answered with the user's own
    memory: the sister's insurer (her Fact, her Summary, her turn) is left out of it, and
    found when a query names her; the son's allergy, a constraint, stays in a plan's."""
    user = "u-aside"
    await said(world, user, ASIDE, "2026-11-05")

    async def context(query: str) -> str:
        r = data(await gql(world.client, MEMORY, u=user, q=query, now=NOW))
        return str(r["memory"]["formattedContext"])

    mine = await context("Which insurance company do I use for my car?")
    assert has(mine, "Lumen") and not has(mine, "Halden"), mine
    hers = await context("Which insurer does my sister use?")
    assert has(hers, "Halden"), hers
    plan = await context("What snacks should I buy for the picnic?")
    assert has(plan, "sesame"), plan
