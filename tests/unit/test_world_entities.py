"""The user's world as Entity nodes: subject rows for the write, match forms for recall,
the decoded subject of a Fact, and the Facts about a named entity as one more ranked list."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from extract.types import FactDraft
from graph.entities import match_form, query_form, subject_key, subject_row, world_entity_id
from graph.fact_writes import NewFact, _fact_row
from graph.recall import Candidates, FactCandidate, decode
from service.recall import RRF_K, Weights, assemble, plan, rank_evidence
from tests.unit.test_recall import fact
from tests.unit.test_recall_read import STAMP, fact_row, row

T = datetime(2026, 3, 2, 9, tzinfo=UTC)


def draft(content: str, subject: str | None = None, **kw: Any) -> FactDraft:
    return FactDraft(
        content=content,
        kind="fact",
        source_message_ids=("m1",),
        time_start=T,
        time_end=T,
        lang="en",
        subject=subject,
        **kw,
    )


def test_a_subject_is_keyed_by_its_folded_name_and_gathers_its_aliases() -> None:
    d = draft(
        "The user's sister-in-law keeps bees",
        "Sister-in-law ",
        subject_kind="person",
        subject_aliases=("SIL",),
    )
    other = replace(d, subject="sister-in-law", subject_aliases=("my  brother's wife",))
    r = subject_row("t", "u1", d, (d, other))
    assert r is not None
    assert r["key"] == subject_key("sister-in-law") == "sister-in-law"
    assert r["entity_id"] == world_entity_id("t", "u1", "sister-in-law")
    assert r["name"] == "Sister-in-law" and r["kind"] == "person"
    assert r["aliases"] == ["Sister-in-law", "SIL", "sister-in-law", "my brother's wife"]
    assert r["terms"] == ["sister in law", "sil", "my brother s wife"]
    assert world_entity_id("t", "u1", "x") != world_entity_id("t", "u2", "x")  # per user


def test_a_fact_about_the_user_has_no_subject_row() -> None:
    d = draft("The user keeps bees")
    assert subject_row("t", "u1", d) is None
    row_ = _fact_row("t", "u1", NewFact("f1", d, None))
    assert row_["subject"] is None and row_["subject_kind"] == "user"
    about = _fact_row("t", "u1", NewFact("f2", draft("x", "养蜂协会", subject_kind="org"), None))
    assert about["subject"]["name"] == "养蜂协会" and about["subject_kind"] == "org"
    unsaid = _fact_row("t", "u1", NewFact("f3", draft("x", "the hive"), None))
    assert unsaid["subject_kind"] == "thing"  # a subject, its kind not given


def test_match_forms_split_cjk_from_latin_and_pad_the_query() -> None:
    assert match_form("Plan dinner with my Dad!") == "plan dinner with my dad"
    assert query_form("我的dad呢？") == " 我的 dad 呢 "
    assert query_form("我表哥现在住哪？") == " 我表哥现在住哪 "
    # recall's test (cypher/recall.cypher): a Latin term whole, a CJK term inside a run
    q = query_form("Is the daddy longlegs back?")
    assert " dad " not in q and " daddy " in q
    assert "表哥" in query_form("我表哥现在住哪？")


def test_recall_decodes_the_facts_about_named_entities_and_the_subject() -> None:
    fr = fact_row("a")
    fr["fact"] |= {"subject": "表哥", "subject_kind": "person", "subject_id": "w_1"}
    named = {
        "id": "a",
        "fv": 0.7,
        "about": "表哥",
        "sources": ["m-a"],
        "sessions": ["s1"],
        "time_start": STAMP,
        "time_end": STAMP,
    }
    c = decode(row(facts=[fr], entity_facts=[named]))
    assert c.entity_facts[0].about == "表哥" and c.entity_facts[0].sources == ("m-a",)
    f = c.facts(["a"])["a"]
    assert (f.subject, f.subject_kind, f.subject_id) == ("表哥", "person", "w_1")
    assert decode(row()).entity_facts == ()  # a row without the block decodes as before


def _cand(fid: str, score: float, about: str | None = None) -> FactCandidate:
    return FactCandidate(fid, score, T, T, sources=(f"m-{fid}",), about=about)


def test_facts_about_a_named_entity_are_one_more_ranked_list() -> None:
    c = Candidates(
        fact_near=(_cand("near", 0.9), _cand("both", 0.8)),
        entity_facts=(_cand("both", 0.8, "舅舅"), _cand("only", 0.5, "舅舅")),
    )
    w = Weights(turn=0.0, session=0.0)
    got = {r.id: r for r in rank_evidence(c, None, w)}
    assert got["only"].score == w.entity / (RRF_K + 2)  # found through the entity alone
    assert got["both"].score == w.dense / (RRF_K + 2) + w.entity / (RRF_K + 1)
    assert got["both"].score > got["near"].score  # the named entity's Fact comes forward
    assert (got["both"].entity, got["both"].about) == (1, "舅舅")
    assert got["near"].entity is None and got["near"].about is None
    off = {r.id: r.score for r in rank_evidence(c, None, replace(w, entity=0.0))}
    assert off["near"] > off["both"]


def test_a_fact_found_through_a_named_entity_says_so() -> None:
    c = Candidates(entity_facts=(_cand("only", 0.5, "father"),))
    w = Weights()
    p = plan(c, None, 5, w)
    r = assemble(p, c, {"only": fact("only")}, "plan dinner with my dad", w, user_id="u1")
    (item,) = [i for i in r.mid_term if i.id == "only"]
    assert item.reason.startswith("about father named in the query; close to the query (")
    assert "entity #1" in item.reason


def test_a_persons_name_words_are_terms_of_their_entity() -> None:
    """ "Ruth Penhale" is also found as "Ruth": each capitalised word of a person's name."""
    d = draft("x", "beekeeping mentor", subject_kind="person", subject_aliases=("Ruth Penhale",))
    r = subject_row("t", "u1", d)
    assert r is not None
    assert r["terms"] == ["beekeeping mentor", "ruth penhale", "ruth", "penhale"]
    place = subject_row("t", "u1", draft("x", "Old Mill Hall", subject_kind="place"))
    assert place is not None and place["terms"] == ["old mill hall"]  # a place: whole only
