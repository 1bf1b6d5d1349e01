"""The user's world as Entity nodes on the real Neo4j (issue 37): Facts written with a
subject through the real write path are ABOUT one Entity per user and key (an alias finds
it too), GraphQL shows the entities with their Facts and a Fact's subject, recall brings
forward the Facts of an entity the query names by an alias, and deleting the source Message
of an entity's last Fact removes the Entity."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx

from extract.types import FactDraft
from graph import recall as grecall
from graph.fact_writes import NewFact, write_facts
from graph.fencing import user_token
from graph.recall import Candidates
from service.memory import Memory
from service.recall import Weights, rank_evidence
from tests.integration.helpers import gql

TENANT = "tenant-a"
USER = "u-world"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

TEXTS = {
    "w1": "My grandmother grows orchids in her greenhouse.",
    "w2": "我表姐在杭州开了一家花店。",
    "w3": "I always take a window seat on trains.",
    "w4": "Grandma is allergic to penicillin, by the way.",
    "w5": "I usually cycle to the office.",
}

ENTITIES = """query($u: String!) { entities(userId: $u) {
  id name kind aliases facts { id content subjectName subjectKind } } }"""
FACTS = """query($u: String!) { facts(userId: $u) {
  id content subjectName subjectKind subject { id name kind aliases } } }"""


def msg(mid: str, minute: int) -> dict[str, Any]:
    return {
        "id": mid,
        "userId": USER,
        "sessionId": "s1",
        "role": "user",
        "content": TEXTS[mid],
        "timestamp": (T0 + timedelta(minutes=minute)).isoformat(),
    }


def draft(mid: str, content: str, minute: int, lang: str = "en", **kw: Any) -> FactDraft:
    return FactDraft(
        content=content,
        kind="fact",
        source_message_ids=(mid,),
        time_start=T0 + timedelta(minutes=minute),
        time_end=T0 + timedelta(minutes=minute),
        lang="zh" if lang == "zh" else "en",
        key=f"fact:{content}",
        **kw,
    )


DRAFTS = [
    draft(
        "w1",
        "The user's grandmother grows orchids in her greenhouse",
        0,
        subject="grandmother",
        subject_kind="person",
        subject_aliases=("grandma", "nana"),
    ),
    draft("w2", "用户的表姐在杭州开了一家花店", 1, "zh", subject="表姐", subject_kind="person"),
    draft("w3", "The user always takes a window seat on trains", 2),
    # another name of the same person: the alias finds the grandmother's Entity
    draft("w4", "The user's grandma is allergic to penicillin", 3, subject="Grandma"),
    draft("w5", "The user usually cycles to the office", 4),
]


async def _write(memory: Memory) -> dict[str, str]:
    """Store the Messages, then the Facts through the pipeline's write (no extraction)."""
    bare = Memory(memory.db, memory.settings, None)
    await bare.add_messages(TENANT, [msg(m, i) for i, m in enumerate(TEXTS)])
    assert memory.pipeline is not None
    embed = memory.pipeline.models.embedder.embed_passages
    vecs = embed([d.content for d in DRAFTS])
    ids = {d.source_message_ids[0]: f"f_{d.source_message_ids[0]}" for d in DRAFTS}
    facts = [NewFact(ids[d.source_message_ids[0]], d, v) for d, v in zip(DRAFTS, vecs, strict=True)]
    token = await user_token(memory.db, TENANT, USER)
    processed: dict[str, list[float] | None] = dict(
        zip(TEXTS, embed(list(TEXTS.values())), strict=True)
    )
    await write_facts(memory.db, TENANT, USER, facts, processed, token)
    return ids


async def _entity_count(memory: Memory) -> int:
    rows = await memory.db.rows(
        "MATCH (e:Entity) WHERE e.user_id = $u AND e.world = true RETURN count(e) AS n", u=USER
    )
    return int(rows[0]["n"])


async def test_entities_with_their_facts_and_a_facts_subject(
    memory: Memory, client: httpx.AsyncClient
) -> None:
    ids = await _write(memory)
    r = await gql(client, ENTITIES, u=USER)
    assert "errors" not in r, r
    by_name = {e["name"]: e for e in r["data"]["entities"]}
    assert set(by_name) == {"grandmother", "表姐"}  # "Grandma" is the grandmother
    gm = by_name["grandmother"]
    assert gm["kind"] == "person"
    assert set(gm["aliases"]) == {"grandmother", "grandma", "nana", "Grandma"}
    assert {f["id"] for f in gm["facts"]} == {ids["w1"], ids["w4"]}
    assert {f["subjectKind"] for f in gm["facts"]} == {"person"}
    assert [f["subjectName"] for f in by_name["表姐"]["facts"]] == ["表姐"]

    r = await gql(client, FACTS, u=USER)
    assert "errors" not in r, r
    facts = {f["id"]: f for f in r["data"]["facts"]}
    own = facts[ids["w3"]]
    assert (own["subject"], own["subjectName"], own["subjectKind"]) == (None, None, "user")
    assert facts[ids["w4"]]["subjectName"] == "Grandma"  # as the user said it
    assert facts[ids["w4"]]["subject"]["id"] == gm["id"]
    assert facts[ids["w2"]]["subject"]["name"] == "表姐"


async def _candidates(memory: Memory, query: str, now: datetime) -> Candidates:
    assert memory.pipeline is not None
    qvec = memory.pipeline.models.embed_query(query)
    return await grecall.candidates(memory.db, TENANT, USER, query, qvec, now, None)


def _position(c: Candidates, fact_id: str, w: Weights) -> int:
    return [r.id for r in rank_evidence(c, None, w)].index(fact_id)


async def test_a_query_naming_an_entity_by_an_alias_brings_its_facts_forward(
    memory: Memory,
) -> None:
    ids = await _write(memory)
    now = T0 + timedelta(days=3)
    query = "what flowers should I bring nana?"
    c = await _candidates(memory, query, now)
    assert {(f.id, f.about) for f in c.entity_facts} == {
        (ids["w1"], "grandmother"),
        (ids["w4"], "grandmother"),
    }
    # the penicillin Fact says nothing of flowers: the name in the query brings it forward
    w = Weights()
    assert _position(c, ids["w4"], w) < _position(c, ids["w4"], replace(w, entity=0.0))
    r = await memory.recall(TENANT, USER, query, now=now, limit=10)
    reasons = {i.id: i.reason for i in r.mid_term}
    assert reasons[ids["w4"]].startswith("about grandmother named in the query"), reasons
    assert not any("named in the query" in reasons.get(ids[m], "") for m in ("w2", "w3", "w5"))
    # a Chinese query names the cousin inside a run of characters
    c = await _candidates(memory, "我表姐现在做什么工作？", now)
    assert [(f.id, f.about) for f in c.entity_facts] == [(ids["w2"], "表姐")]
    # a Latin name matches whole words only: "nanas" names nobody
    assert (await _candidates(memory, "bananas and nanas", now)).entity_facts == ()


async def test_deleting_the_last_source_removes_the_orphan_entity(
    memory: Memory, client: httpx.AsyncClient
) -> None:
    await _write(memory)
    assert await _entity_count(memory) == 2
    delete = "mutation($id: ID!) { deleteMessage(id: $id) { counts } }"
    r = await gql(client, delete, id="w1")  # the grandmother keeps her penicillin Fact
    assert "errors" not in r, r
    assert r["data"]["deleteMessage"]["counts"]["entities"] == 0
    assert await _entity_count(memory) == 2
    r = await gql(client, delete, id="w4")  # her last Fact goes, and she with it
    assert r["data"]["deleteMessage"]["counts"]["entities"] == 1
    r = await gql(client, ENTITIES, u=USER)
    assert [e["name"] for e in r["data"]["entities"]] == ["表姐"]
    forget = "mutation($u: String!) { forgetUser(userId: $u) { remaining } }"
    r = await gql(client, forget, u=USER)
    assert r["data"]["forgetUser"]["remaining"] == 0
    assert await _entity_count(memory) == 0


async def test_a_slot_is_subject_and_attribute(memory: Memory) -> None:
    """The cousin's age never supersedes the user's; the cousin's newer age supersedes hers."""
    texts = {"a1": "I am 34.", "a2": "My cousin is 36.", "a3": "Oops, my cousin just turned 37."}
    bare = Memory(memory.db, memory.settings, None)
    await bare.add_messages(
        TENANT,
        [
            {
                "id": k,
                "userId": USER,
                "sessionId": "s1",
                "role": "user",
                "content": v,
                "timestamp": (T0 + timedelta(minutes=i)).isoformat(),
            }
            for i, (k, v) in enumerate(texts.items())
        ],
    )
    cousin = {"subject": "cousin", "subject_kind": "person"}
    drafts = {
        "f_a1": draft("a1", "The user is 34", 0, slot="age", value="34"),
        "f_a2": draft("a2", "The user's cousin is 36", 1, slot="age", value="36", **cousin),
        "f_a3": draft("a3", "The user's cousin is 37", 2, slot="age", value="37", **cousin),
    }
    for fid, d in drafts.items():  # one batch each, in time order
        token = await user_token(memory.db, TENANT, USER)
        await write_facts(memory.db, TENANT, USER, [NewFact(fid, d, None)], {}, token)
    got = await memory.facts_by_ids(TENANT, list(drafts))
    assert {i: f.validity for i, f in got.items()} == {
        "f_a1": "active",
        "f_a2": "superseded",
        "f_a3": "active",
    }
    assert got["f_a3"].subject == "cousin" and got["f_a1"].subject is None
