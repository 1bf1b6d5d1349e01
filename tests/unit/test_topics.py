"""Topic assignment: taxonomy, embedding, context, new — and the seed's running-shoe facts."""

from __future__ import annotations

import dataclasses
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from consolidation.topics import (
    TopicChoice,
    assign_topics,
    derive_topic_name,
    topic_embedding_text,
)
from extract.types import EntityRef, FactRecord, Lang, TopicRecord
from packs import load as load_packs
from packs import taxonomy
from packs.taxonomy import (
    load_taxonomy,
    match_scores,
    taxonomy_from_dict,
    taxonomy_to_dict,
)
from tests.unit.fake_embedder import FakeEmbedder

T0 = datetime(2025, 5, 10, 20, 0, tzinfo=UTC)
DEFAULT_TAXONOMY = load_packs("general").taxonomy


def make_fact(
    fact_id: str,
    content: str,
    kind: Any = "fact",
    *,
    lang: Lang = "en",
    minutes: float = 0,
    session: str = "s1",
    **extra: Any,
) -> FactRecord:
    when = T0 + timedelta(minutes=minutes)
    extra.setdefault("source_message_ids", (f"m-{fact_id}",))
    return FactRecord(
        fact_id=fact_id,
        user_id="u1",
        content=content,
        kind=kind,
        time_start=when,
        time_end=when,
        lang=lang,
        session_ids=(session,) if session else (),
        **extra,
    )


def _implicit(event: str, *more: str) -> dict[str, Any]:
    return {"explicit": False, "confidence": 0.7, "event_types": (event, *more)}


def seed_facts(lang: Lang) -> list[FactRecord]:
    """The spec's shopping example as Facts (chat turns first, then behaviour)."""
    p = f"{lang}-"
    if lang == "zh":
        texts = [
            "用户正在寻找日常慢跑鞋",
            "用户预算在 800 以内",
            "用户偏好缓震、脚感不硬的跑鞋",
            "用户主要在公园跑步，单次大概 5 公里",
            "用户筛选的价格区间为 500-800 元",
            "用户常看 42 码",
            "用户对浅色、外观不夸张的鞋款更感兴趣",
            "用户当前不倾向碳板竞速鞋",
        ]
    else:
        texts = [
            "The user is looking for everyday jogging shoes",
            "The user's budget is under 800",
            "The user prefers cushioned shoes that don't feel hard",
            "The user mainly runs in the park, about 5 km per run",
            "The user filters prices of 500-800",
            "The user often looks at size 42",
            "The user is more interested in light-coloured, understated designs",
            "The user is currently not inclined towards carbon-plate racing shoes",
        ]
    return [
        make_fact(p + "intent", texts[0], "plan", lang=lang),
        make_fact(p + "budget", texts[1], "constraint", lang=lang, slot="budget", value="<=800"),
        make_fact(p + "soft", texts[2], "preference", lang=lang, polarity="likes"),
        make_fact(p + "park", texts[3], "fact", lang=lang, minutes=1),
        make_fact(
            p + "price",
            texts[4],
            "behavior_pattern",
            lang=lang,
            minutes=3,
            slot="price_range",
            value="500-800",
            **_implicit("filter"),
        ),
        make_fact(
            p + "size",
            texts[5],
            "behavior_pattern",
            lang=lang,
            minutes=3,
            slot="shoe_size",
            value="42",
            entities=(EntityRef("42 码" if lang == "zh" else "size 42", "SIZE", "42"),),
            **_implicit("filter"),
        ),
        make_fact(
            p + "light",
            texts[6],
            "preference",
            lang=lang,
            minutes=5,
            polarity="likes",
            source_message_ids=(p + "fav1", p + "fav2"),
            **_implicit("favorite", "favorite"),
        ),
        make_fact(
            p + "carbon",
            texts[7],
            "preference",
            lang=lang,
            minutes=6,
            polarity="avoids",
            **_implicit("skip"),
        ),
    ]


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_seed_facts_all_file_under_running_shoes(lang: Lang) -> None:
    facts = seed_facts(lang)
    choices = assign_topics(facts, [], None)
    # a new Topic is named in the language of its facts (issue 37)
    assert {c.name for c in choices.values()} == {"跑鞋" if lang == "zh" else "running shoes"}
    assert all(c.is_new and c.topic_id is None for c in choices.values())
    assert choices[f"{lang}-intent"].method == "taxonomy"
    assert choices[f"{lang}-carbon"].method == "taxonomy"
    # budget, size and price carry no shoe word: they follow their session
    for fid in ("budget", "size", "price"):
        assert choices[f"{lang}-{fid}"].method == "context"
        assert 0 < choices[f"{lang}-{fid}"].score <= 1


def test_existing_topic_is_reused_with_its_id() -> None:
    existing = [TopicRecord(topic_id="t-rs", name="Running Shoes")]
    choices = assign_topics(seed_facts("zh"), existing, None)
    assert {(c.name, c.is_new, c.topic_id) for c in choices.values()} == {
        ("Running Shoes", False, "t-rs")
    }


def test_assignment_is_deterministic_and_order_free() -> None:
    facts = seed_facts("en") + seed_facts("zh")
    first = assign_topics(facts, [], None)
    shuffled = facts[:]
    random.Random(7).shuffle(shuffled)
    assert assign_topics(shuffled, [], None) == first


def test_strong_match_beats_context_but_a_weak_one_yields() -> None:
    facts = [
        make_fact("shoe", "用户想买一双跑鞋", "plan", lang="zh"),
        make_fact("run", "用户每周跑步三次", "fact", lang="zh", minutes=1),
        make_fact("trip", "用户下个月去东京旅行，已订好酒店", "plan", lang="zh", minutes=2),
    ]
    choices = assign_topics(facts, [], None)
    assert choices["run"].name == "跑鞋"  # "跑步" is a shoe cue in this session
    assert choices["run"].method == "context"
    assert choices["trip"].name == "旅行"
    assert choices["trip"].method == "taxonomy"


def test_taxonomy_matches_labels_and_entities() -> None:
    by_label = make_fact("a", "Booked for Friday", labels=("meeting",), session="x")
    by_entity = make_fact(
        "b", "Prefers window seats", entities=(EntityRef("Lufthansa flight", "ORG", "lh"),)
    )
    choices = assign_topics([by_label, by_entity], [], None, context_window=timedelta(0))
    assert choices["a"].name == "meetings & scheduling"
    assert choices["b"].name == "travel"


def test_team_defaults_go_to_meetings() -> None:
    facts = [
        make_fact("eu", "欧洲团队默认 Berlin", "preference", lang="zh", slot="default_city:eu"),
        make_fact("fri", "周五不要安排会议", "constraint", lang="zh"),
    ]
    choices = assign_topics(facts, [], None)
    assert {c.name for c in choices.values()} == {"会议与日程"}


def test_longer_alias_consumes_shorter_one() -> None:
    scores = match_scores("跑步鞋", DEFAULT_TAXONOMY)
    assert scores == {"running shoes": 1.0}
    assert "health & fitness" in match_scores("running in the park", DEFAULT_TAXONOMY)
    assert "health & fitness" not in match_scores("running shoes", DEFAULT_TAXONOMY)
    assert match_scores("she cared", DEFAULT_TAXONOMY) == {}  # "car" does not match "cared"


def test_the_prefilter_never_changes_a_score(monkeypatch: pytest.MonkeyPatch) -> None:
    """Texts made of the taxonomy's own terms (cut, joined, pluralized, run together) score
    as when every term's pattern is scanned (pieces that every text holds)."""
    tax = DEFAULT_TAXONOMY.extended([("trail gear", ["trail-running pack", "越野 跑包"])])
    unfiltered = tuple(dataclasses.replace(t, pieces=("",)) for t in taxonomy._compiled(tax))

    def scan_every_term(text: str) -> dict[str, float]:
        with monkeypatch.context() as m:
            m.setattr(taxonomy, "_compiled", lambda _: unfiltered)
            return match_scores(text, tax)

    terms = [t for e in tax.entries for t in (*e.aliases, *e.cues)]
    rng = random.Random(5)
    glue = [" ", "", "-", "s ", "ing ", "ed ", "/", "x", "的", " and "]
    for _ in range(400):
        parts = rng.sample(terms, rng.randint(1, 5))
        parts = [p[: rng.randint(1, len(p))] if rng.random() < 0.3 else p for p in parts]
        text = "".join(p + rng.choice(glue) for p in parts)
        text = text.upper() if rng.random() < 0.2 else text
        assert match_scores(text, tax) == scan_every_term(text), text


def test_embedding_match_to_existing_topic() -> None:
    embedder = FakeEmbedder()
    existing = [TopicRecord(topic_id="t-fp", name="fountain pen collecting")]
    fact = make_fact("pen", "The user collects vintage fountain-pen inks", session="")
    far = make_fact(
        "far", "Zebra crossings annoy the user", minutes=600, session="", labels=("traffic",)
    )
    choices = assign_topics([fact, far], existing, embedder, threshold=0.45)
    assert choices["pen"] == TopicChoice(
        name="fountain pen collecting",
        is_new=False,
        method="embedding",
        score=choices["pen"].score,
        topic_id="t-fp",
    )
    assert choices["pen"].score >= 0.45
    assert embedder.calls == 2  # one batch for topics, one for facts
    assert choices["far"].method == "new"
    assert choices["far"].name == "traffic"


def test_embedding_uses_stored_vectors_without_an_embedder() -> None:
    existing = [TopicRecord(topic_id="t1", name="astronomy", embedding=(1.0, 0.0, 0.0))]
    fact = make_fact("f", "Saw Jupiter's moons last night", embedding=(0.9, 0.1, 0.0))
    choice = assign_topics([fact], existing, None)["f"]
    assert (choice.name, choice.method, choice.topic_id) == ("astronomy", "embedding", "t1")


def test_unmatched_fact_without_context_gets_a_new_topic() -> None:
    facts = [
        make_fact("a", "The user collects vintage fountain pens", session="s1"),
        make_fact("b", "The user owns three fountain pens", session="s2", minutes=2000),
    ]
    choices = assign_topics(facts, [], None)
    assert choices["a"] == TopicChoice("fountain pens", True, "new", 0.0)
    assert choices["b"].name == "fountain pens"


def test_correction_follows_the_superseded_fact_through_known() -> None:
    old = seed_facts("zh")[1]
    new = make_fact(
        "zh-budget2",
        "用户把预算提高到 1000 以内",
        "constraint",
        lang="zh",
        minutes=60 * 24,
        session="s2",
        slot="budget",
        value="<=1000",
    )
    alone = assign_topics([new], [], None)["zh-budget2"]
    assert alone.method == "new"
    # the voters' Topic exists: it keeps its name
    existing = [TopicRecord(topic_id="t-rs", name="running shoes")]
    helped = assign_topics([new], existing, None, known=[(old, "running shoes")])["zh-budget2"]
    assert (helped.name, helped.method) == ("running shoes", "context")


def test_identity_kind_falls_back_to_identity_topic() -> None:
    fact = make_fact("id", "The user is a night owl", "identity", session="")
    assert assign_topics([fact], [], None)["id"].name == "identity"


def test_derive_topic_name() -> None:
    assert derive_topic_name(make_fact("a", "x", labels=("preference", "Board_Games"))) == (
        "board games"
    )
    ent = EntityRef("Lake Tahoe", "LOC", "lake tahoe")
    assert derive_topic_name(make_fact("b", "Went there", entities=(ent,))) == "lake tahoe"
    assert derive_topic_name(make_fact("c", "x", slot="wifi_password:home")) == "wifi password"
    assert derive_topic_name(make_fact("d", "The user collects vintage fountain pens")) == (
        "fountain pens"
    )
    assert derive_topic_name(make_fact("e", "用户收藏古董钢笔", lang="zh")) == "收藏古董钢笔"


def test_topic_embedding_text() -> None:
    text = topic_embedding_text("running shoes")
    assert text.startswith("running shoes: ")
    assert "慢跑鞋" in text and "carbon plate" in text
    assert topic_embedding_text("fountain pens", ["钢笔"]) == "fountain pens: 钢笔"
    assert topic_embedding_text("Fountain Pens") == "fountain pens"


def test_taxonomy_round_trips_through_json(tmp_path: Any) -> None:
    path = tmp_path / "tax.json"
    import json

    path.write_text(json.dumps(taxonomy_to_dict(DEFAULT_TAXONOMY)), encoding="utf-8")
    assert load_taxonomy(path) == DEFAULT_TAXONOMY
    custom = taxonomy_from_dict({"topics": [{"name": "Tea", "aliases": ["乌龙", "oolong"]}]})
    fact = make_fact("t", "用户喜欢乌龙", lang="zh")
    assert assign_topics([fact], [], None, taxonomy=custom)["t"].name == "tea"
    with pytest.raises(ValueError):
        taxonomy_from_dict({"topics": [{"aliases": ["x"]}]})


def test_a_goal_over_two_sessions_is_one_topic_named_by_its_noun() -> None:
    """A kitchen renovation told over two sessions: the later facts share its slot and
    entity, so the whole plan is one Topic, named after the noun its facts share."""
    tile = EntityRef("terracotta tile", "PRODUCT", "terracotta tile")
    facts = [
        make_fact("a", "用户打算重新做厨房的台面", "plan", lang="zh", session="k1"),
        make_fact(
            "b",
            "厨房台面预算两万以内",
            "constraint",
            lang="zh",
            minutes=2,
            session="k1",
            slot="budget:countertop",
        ),
        make_fact(
            "c",
            "用户想用赤陶砖铺厨房地面",
            "preference",
            lang="zh",
            minutes=3,
            session="k1",
            entities=(tile,),
        ),
        make_fact(
            "d",
            "台面预算改成三万",
            "constraint",
            lang="zh",
            minutes=60 * 24 * 9,
            session="k2",
            slot="budget:countertop",
        ),
        make_fact(
            "e",
            "赤陶砖要哑光的",
            "preference",
            lang="zh",
            minutes=60 * 24 * 9 + 1,
            session="k2",
            entities=(tile,),
        ),
    ]
    taxonomy = taxonomy_from_dict({"topics": [{"name": "pets", "aliases": ["猫"]}]})
    choices = assign_topics(facts, [], None, taxonomy=taxonomy)
    assert {c.name for c in choices.values()} == {"厨房"}


def test_weak_fact_joins_the_nearest_topic_instead_of_founding_one() -> None:
    embedder = FakeEmbedder()
    facts = [
        make_fact("a", "The user is planning a wine cellar for the basement", session="w1"),
        make_fact("b", "The wine cellar needs a humidity control", session="w1", minutes=1),
        make_fact("c", "Nothing fancy", session="w2", minutes=60 * 24 * 3),
    ]
    taxonomy = taxonomy_from_dict({"topics": [{"name": "pets", "aliases": ["cat"]}]})
    choices = assign_topics(facts, [], embedder, taxonomy=taxonomy)
    assert len({c.name for c in choices.values()}) == 1


@pytest.mark.parametrize(
    ("content", "lang"),
    [
        ("如果以后搬家了，用户可能会换成地暖", "zh"),
        ("用户只要安静一点的", "zh"),
        ("The user climbs everything in sight", "en"),
        ("The user filters by width: <=90", "en"),
    ],
)
def test_a_clause_fragment_never_names_a_topic(content: str, lang: Lang, en_nlp: Any) -> None:
    fact = make_fact("x", content, lang=lang)
    taxonomy = taxonomy_from_dict({"topics": [{"name": "pets", "aliases": ["cat"]}]})
    name = assign_topics([fact], [], None, taxonomy=taxonomy, nlp=en_nlp)["x"].name
    for fragment in ("如果", "只要", "以后", "climbs", "filter"):
        assert fragment not in name
    assert len(name) <= 12


def test_the_group_as_a_whole_picks_the_taxonomy_entry() -> None:
    """One incidental word (a sibling in a laptop purchase) does not split the goal."""
    facts = [
        make_fact("a", "The user wants a laptop for photo editing", "plan", session="p"),
        make_fact("b", "The user's budget is 1800 euros", "constraint", session="p", minutes=1),
        make_fact("c", "The user's brother recommended a matte screen", session="p", minutes=2),
        make_fact("d", "The user needs 32GB RAM", "constraint", session="p", minutes=3),
    ]
    choices = assign_topics(facts, [], None)
    assert {c.name for c in choices.values()} == {"electronics"}


def test_names_are_the_shared_noun_phrase(en_nlp: Any) -> None:
    facts = [
        make_fact("a", "The user is restoring an old sailing boat", "plan", session="b"),
        make_fact("b", "The user wants teak decking for the boat", session="b", minutes=1),
        make_fact("c", "The boat has to fit a 6 metre berth", session="b", minutes=2),
    ]
    taxonomy = taxonomy_from_dict({"topics": [{"name": "pets", "aliases": ["cat"]}]})
    choices = assign_topics(facts, [], None, taxonomy=taxonomy, nlp=en_nlp)
    assert {c.name for c in choices.values()} == {"boat"}
