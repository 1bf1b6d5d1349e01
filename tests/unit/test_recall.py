"""Recall's ranking on hand-made candidates: fusion, the leading Summary, windows, statuses."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from graph.recall import Candidates, FactCandidate, Hit, MessageCandidate, SummaryCandidate
from graph.records import StoredFact, StoredMessage
from service.recall import (
    RRF_K,
    Weights,
    assemble,
    own_candidates,
    own_memory,
    plan,
    rank_evidence,
    rank_summaries,
)
from text.time_window import Window

T0 = datetime(2026, 5, 1, 12, tzinfo=UTC)
W = Weights()


def summary(sid: str, sv: float, facts: list[str], days: int = 0, **kw: Any) -> dict[str, Any]:
    start = T0 + timedelta(days=days)
    return {
        "summary_id": sid,
        "content": f"summary {sid}",
        "topic": "running shoes",
        "kind": kw.get("kind", "general"),
        "confidence": 0.8,
        "retrieval_boost": kw.get("boost"),
        "memory_status": kw.get("status", "active"),
        "event_start": start,
        "event_end": start + timedelta(hours=1),
        "source_facts": facts,
        "sv": sv,
        "tv": sv,
    }


def fact(fid: str, days: int = 0) -> StoredFact:
    """A stored Fact as graph/ reads it, cited by one turn m-<fid>."""
    t = T0 + timedelta(days=days)
    src = StoredMessage(
        message_id=f"m-{fid}",
        user_id="u1",
        session_id="s1",
        role="user",
        content=f"message m-{fid}",
        timestamp=t,
        event_type="message",
        page=None,
        metadata={},
        lang="en",
        status="processed",
    )
    return StoredFact(
        fact_id=fid,
        user_id="u1",
        content=f"fact {fid}",
        kind="preference",
        slot=None,
        value=None,
        polarity="positive",
        explicit=True,
        confidence=0.9,
        validity="current",
        status="active",
        labels=(),
        entity_names=(),
        source_message_ids=(src.message_id,),
        lang="en",
        topic="running shoes",
        anchors=(),
        time_start=t,
        time_end=t,
        created_at=t,
        sources=(src,),
    )


def as_msg(d: dict[str, Any], score: str = "mv") -> MessageCandidate:
    """A hand-made row as the record graph/ decodes it."""
    return MessageCandidate(
        message_id=d["message_id"],
        content=d.get("content") or "",
        timestamp=d["timestamp"],
        role=d.get("role", "user"),
        event_type=d.get("event_type"),
        session_id=d.get("session_id"),
        metadata=json.loads(d.get("metadata_json") or "{}"),
        rejected=bool(d.get("rejected")),
        rejected_reason=d.get("rejected_reason"),
        sourced=bool(d.get("sourced")),
        score=float(d.get(score, 0.0)),
    )


def as_fact(d: dict[str, Any], score: str) -> FactCandidate:
    return FactCandidate(
        id=d["id"],
        score=float(d[score]),
        time_start=d["time_start"],
        time_end=d["time_end"],
        sources=tuple(d.get("sources") or ()),
        sessions=tuple(d.get("sessions") or ()),
    )


def cands(**kw: Any) -> Candidates:
    """Candidates from hand-made rows (dicts shaped like the recall query's)."""
    return Candidates(
        summaries=tuple(
            SummaryCandidate(**(s | {"source_facts": tuple(s["source_facts"])}))
            for s in kw.get("summaries", [])
        ),
        summary_hits=tuple(Hit(h["id"], h["score"]) for h in kw.get("summary_hits", [])),
        fact_near=tuple(as_fact(f, "fv") for f in kw.get("fact_near", [])),
        fact_hits=tuple(as_fact(f, "score") for f in kw.get("fact_hits", [])),
        messages=tuple(as_msg(m, "mv") for m in kw.get("messages", [])),
        message_hits=tuple(as_msg(m, "score") for m in kw.get("message_hits", [])),
        recent=tuple(as_msg(m, "none") for m in kw.get("recent", [])),
        corrected={k: tuple(v) for k, v in kw.get("corrected", {}).items()},
    )


def near(fid: str, fv: float, days: int = 0) -> dict[str, Any]:
    t = T0 + timedelta(days=days)
    return {"id": fid, "fv": fv, "time_start": t, "time_end": t}


def msg(mid: str, days: int = 0, **kw: Any) -> dict[str, Any]:
    return {
        "message_id": mid,
        "content": f"message {mid}",
        "timestamp": T0 + timedelta(days=days),
        **kw,
    }


def test_dense_and_full_text_ranks_are_fused_by_weight() -> None:
    c = cands(
        fact_near=[near("a", 0.95), near("b", 0.94)],
        fact_hits=[{"id": "b", "score": 7.0, "time_start": T0, "time_end": T0}],
        messages=[msg("m1", mv=0.96)],
        message_hits=[msg("m2", score=3.0)],
    )
    ranked = rank_evidence(c, None, W)  # equal weights: rank 1 of either list ties
    assert [r.id for r in ranked] == ["b", "m1", "a", "m2"]
    b = ranked[0]
    assert (b.dense, b.lexical) == (3, 1)
    assert b.score == 1 / (RRF_K + 3) + 1 / (RRF_K + 1)
    lexical = rank_evidence(c, None, Weights(lexical=2.0))
    assert [r.id for r in lexical] == ["b", "m2", "m1", "a"]
    assert lexical[0].score == 1 / (RRF_K + 3) + 2 / (RRF_K + 1)
    assert b.why() == "dense #3, full-text #1"


def test_best_summary_leads_and_facts_keep_their_sources() -> None:
    c = cands(
        summaries=[summary("s1", 0.91, ["a", "b"]), summary("s2", 0.93, ["c"])],
        summary_hits=[{"id": "s1", "score": 5.0}],
        fact_near=[near("a", 0.95), near("c", 0.90)],
        fact_hits=[{"id": "a", "score": 4.0, "time_start": T0, "time_end": T0}],
        messages=[msg("m-a", mv=0.97), msg("m9", mv=0.80)],
    )
    p = plan(c, None, 6, W)
    assert [s.summary_id for _r, s in p.summaries] == ["s1", "s2"]
    r = assemble(p, c, {f: fact(f) for f in p.fact_ids()}, "running shoes?", W)
    kinds = [(it.kind, it.id) for it in r.mid_term]
    assert kinds[0] == ("summary", "s1")
    # m-a is fact a's source: not repeated as a message item
    assert ("message", "m-a") not in kinds and ("fact", "a") in kinds
    a = next(it for it in r.mid_term if it.id == "a")
    assert a.source_message_ids == ["m-a"] and a.reason.startswith("supports summary s1")
    assert r.mid_term[0].source_fact_ids == ["a", "b"]  # closest evidence first
    assert r.mid_term[0].relevant_fact_ids == ["a"], "only the Facts that bear on the query"
    assert "[s1]" in r.formatted and "(evidence: m-a)" in r.formatted


def test_window_filters_before_ranking_and_the_rest_follows_when_it_is_sparse() -> None:
    c = cands(
        summaries=[summary("old", 0.95, ["a"]), summary("new", 0.90, ["b"], days=10)],
        fact_near=[near("a", 0.95), near("b", 0.90, days=10)],
    )
    w = Window(T0 + timedelta(days=9), T0 + timedelta(days=11), "last week")
    p = plan(c, w, 8, W)
    assert [s.summary_id for _r, s in p.summaries] == ["new"]
    # ranked within the window first; the better match outside it follows, below and labelled
    assert [r.id for r in p.evidence] == ["b", "a"] and p.evidence[0].dense == 1
    assert p.evidence[1].outside and p.evidence[1].score < p.evidence[0].score
    assert not p.evidence[0].outside
    facts = {"a": fact("a"), "b": fact("b", days=10)}
    r = assemble(p, c, facts, "what did I do last week?", W)
    assert "within 'last week'" in r.mid_term[0].reason
    assert "outside the asked time" in next(it.reason for it in r.mid_term if it.id == "a")


def test_a_full_window_shows_only_what_is_inside() -> None:
    c = cands(fact_near=[near("a", 0.95), near("b", 0.90, days=10)])
    w = Window(T0 + timedelta(days=9), T0 + timedelta(days=11), "last week")
    assert [r.id for r in plan(c, w, 1, W).evidence] == ["b"]


def test_an_empty_window_never_empties_recall() -> None:
    c = cands(fact_near=[near("a", 0.95), near("b", 0.90)])
    w = Window(T0 + timedelta(days=30), T0 + timedelta(days=31), "in May")
    ev = plan(c, w, 8, W).evidence
    assert [r.id for r in ev] == ["a", "b"] and all(r.outside for r in ev)


def test_status_and_boost_scale_summaries_and_archived_is_hidden() -> None:
    c = cands(
        summaries=[
            summary("plain", 0.95, []),
            summary("boosted", 0.90, [], boost=3.0),
            summary("low", 0.99, [], status="deprioritized"),
            summary("gone", 0.99, [], status="archived"),
        ]
    )
    order = [s.summary_id for _r, s in rank_summaries(c, None, W)]
    assert order == ["boosted", "plain", "low"]


def test_lasting_memory_goes_to_long_term_and_limit_is_kept() -> None:
    c = cands(
        summaries=[summary("me", 0.80, [], kind="identity"), summary("s", 0.95, ["a"])],
        fact_near=[near(f, 0.9 - i / 100) for i, f in enumerate("abcdefgh")],
    )
    p = plan(c, None, 3, W)
    r = assemble(p, c, {f: fact(f) for f in p.fact_ids()}, "q", W)
    assert len(r.mid_term) == 3 and r.mid_term[0].id == "s"
    assert [it.id for it in r.long_term] == ["me"]
    assert len(p.fact_ids()) == 6  # twice the limit, for messages the facts already cite


def test_only_the_users_own_turns_rank_as_memory() -> None:
    own = msg("m1", role="user", event_type="message", mv=0.9)
    others = [
        msg("m2", role="assistant", event_type="message", mv=0.99),
        msg("m3", role="user", event_type="message", metadata_json='{"speaker": "Wei"}', mv=0.98),
        msg("m5", role="user", event_type="click", sourced=False, mv=0.96),
    ]
    me = msg(
        "m6", role="user", event_type="message", metadata_json='{"speaker": "Ann", "self": true}'
    )
    assert own_memory(as_msg(own), "u1") and own_memory(as_msg(me | {"mv": 0.5}), "u1")
    assert not any(own_memory(as_msg(m), "u1") for m in others)
    # an event a Fact cites is the user's behaviour evidence
    assert own_memory(as_msg(msg("m7", role="user", event_type="filter", sourced=True)), "u1")
    c = own_candidates(cands(messages=[own, *others], recent=[own, *others]), "u1")
    p = plan(c, None, 8, W)
    r = assemble(p, c, {}, "what do I like?", W, "u1")
    assert [it.id for it in r.mid_term] == ["m1"]
    assert len(r.short_term) == 4, "the recent conversation keeps every turn"


def test_a_rejected_turn_stays_evidence_weighted_lower_and_labelled() -> None:
    said = msg("m1", role="user", event_type="message", mv=0.90, content="we met at the dock")
    asked = msg(
        "m2",
        role="user",
        event_type="message",
        rejected=True,
        rejected_reason="question to the agent",
        mv=0.95,
        content="is the dock open on Sundays?",
    )
    assert own_memory(as_msg(asked), "u1"), "an extraction miss is no recall miss"
    c = own_candidates(cands(messages=[asked, said]), "u1")
    ranked = rank_evidence(c, None, W)
    assert [r.id for r in ranked] == ["m1", "m2"], "a verdict weighs a close turn down"
    assert [r.dense for r in ranked] == [2, 1], "yet it was ranked, not dropped"
    r = assemble(plan(c, None, 8, W), c, {}, "the dock?", W, "u1")
    assert [it.id for it in r.mid_term] == ["m1", "m2"]
    assert "question to the agent" in r.mid_term[1].reason


def test_ranked_turns_name_their_author_when_the_metadata_does() -> None:
    ann = msg(
        "m1",
        role="user",
        event_type="message",
        metadata_json='{"speaker": "Ann Lee", "self": true}',
        content="I adopted a cat",
        mv=0.9,
    )
    named = msg(
        "m2",
        role="user",
        event_type="message",
        metadata_json='{"name": "Bo: x"}',
        content="We moved",
        mv=0.8,
    )
    plain = msg("m3", role="user", event_type="message", content="I run", mv=0.7)
    c = own_candidates(cands(messages=[ann, named, plain]), "u1")
    r = assemble(plan(c, None, 8, W), c, {}, "who adopted a cat?", W, "u1")
    lines = r.formatted.splitlines()
    assert "- [m1] (1 May 2026) Ann Lee: I adopted a cat" in lines, "dated, then who said it"
    assert "- [m2] (1 May 2026) Bo  x: We moved" in lines, "a name cannot forge a second label"
    assert "- [m3] (1 May 2026) I run" in lines


def test_recent_lines_name_their_author_and_outdated_values_say_so() -> None:
    recent = [
        msg("m4", role="user", event_type="click", content="click: seat A"),
        msg("m3", role="user", event_type="message", metadata_json='{"speaker": "Wei"}'),
        msg("m2", role="assistant", event_type="message", content="assistant: try B"),
        msg("m1", role="user", event_type="message", content="My budget is 2000"),
    ]
    corrected = {"m1": [("f_new", "budget is 2500")], "m3": []}
    c = cands(recent=recent, corrected=corrected)
    r = assemble(plan(c, None, 8, W), c, {}, "q?", W, "u1")
    lines = r.formatted.splitlines()
    assert "- [m1] user: My budget is 2000 (superseded by f_new: budget is 2500)" in lines
    assert "- [m2] assistant: assistant: try B" in lines, "a forged label stays content"
    assert "- [m3] Wei: message m3 (outdated: superseded)" in lines
    assert "- [m4] click: click: seat A" in lines
    zh = assemble(plan(c, None, 8, W), c, {}, "我的预算？", W, "u1")
    assert "- [m4] 点击：click: seat A" in zh.formatted.splitlines()
    assert any(line.startswith("- [m2] 助手：") for line in zh.formatted.splitlines())
    assert [it.author for it in r.short_term] == ["user", "assistant", "Wei", "click"]


def test_only_a_past_time_cue_restricts_recall() -> None:
    from service.recall import past_window
    from text.time_window import parse_time_cue

    now = datetime(2026, 11, 20, 19, tzinfo=UTC)
    assert past_window(parse_time_cue("What did I buy yesterday?", now), now) is not None
    assert past_window(parse_time_cue("我上周做了什么？", now), now) is not None
    for q in ("What's my dinner plan this week?", "这周的周报发到哪里？", "今天穿什么？"):
        w = parse_time_cue(q, now)
        assert w is not None and past_window(w, now) is None, q


def test_only_messages_rejected_as_not_memory_are_flagged_with_the_reason() -> None:
    from extract.types import Extraction, MessageRecord, Rejection
    from service.drafts import rejected_messages

    chat = [MessageRecord(i, "u1", "s1", "user", "x", T0) for i in ("m1", "m2", "m3", "m4")]
    ex = Extraction(
        facts=(),
        rejections=(
            Rejection(("m1",), "about someone else (sister), not the user"),
            Rejection(("m2",), "question to the agent", "Is it busy in June?"),
            Rejection(("m3",), "question to the agent", "Can you note this: I booked X."),
            Rejection(("m4",), "thanks"),
            Rejection(("m4",), "no statement about the user"),
        ),
    )
    # m3 and m4 may hold a statement extraction missed: they stay rankable
    assert rejected_messages(chat, ex) == {
        "m1": "about someone else (sister), not the user",
        "m2": "question to the agent",
    }


def test_a_fact_and_the_turn_it_cites_add_up() -> None:
    c = cands(
        fact_near=[near("a", 0.90) | {"sources": ["m-a"]}, near("b", 0.95)],
        messages=[msg("m-a", mv=0.80), msg("m-x", mv=0.93)],
    )
    added = Weights(turn=1.0)
    ranked = rank_evidence(c, None, added)
    assert [r.id for r in ranked][:2] == ["a", "m-a"], "with the turn weight: found twice, first"
    alone = rank_evidence(c, None, W)
    assert [r.id for r in alone] == ["b", "m-x", "a", "m-a"], "by default two views, one rank each"
    p = plan(c, None, 8, added)
    r = assemble(p, c, {f: fact(f) for f in p.fact_ids()}, "q", added)
    assert [it.id for it in r.mid_term] == ["a", "b", "m-x"], "the cited turn is not repeated"


def test_a_turn_that_matches_better_than_its_fact_is_shown_as_said() -> None:
    c = cands(
        fact_near=[near("a", 0.80) | {"sources": ["m-a"]}],
        messages=[msg("m-a", mv=0.95, content="No glass tables: my toddler climbs")],
    )
    p = plan(c, None, 8, W)
    assert [r.id for r in p.evidence] == ["m-a", "a"], "the better own match leads the tie"
    r = assemble(p, c, {f: fact(f) for f in p.fact_ids()}, "q", W)
    assert [it.id for it in r.mid_term] == ["m-a", "a"]
    assert "No glass tables" in r.formatted


def test_ranked_lines_are_dated_by_when_it_happened() -> None:
    """A Fact's line gives its event time (a resolved "yesterday" is that day, a span its
    first and last day), a ranked turn's line the day it was said; recent turns, whose
    time is now, are undated."""
    c = cands(
        fact_near=[near("a", 0.95), near("b", 0.90)],
        messages=[msg("m9", days=3, mv=0.80)],
        recent=[msg("m10", days=4, role="user", event_type="message")],
    )
    day = datetime(2026, 4, 30, tzinfo=UTC)
    facts = {
        "a": replace(fact("a"), time_start=day, time_end=day + timedelta(days=1)),
        "b": replace(fact("b"), time_start=day, time_end=day + timedelta(days=7)),
    }
    r = assemble(plan(c, None, 8, W), c, facts, "what happened?", W)
    lines = r.formatted.splitlines()
    assert "- [a] (30 April 2026) fact a (evidence: m-a)" in lines
    assert "- [b] (30 April 2026 – 6 May 2026) fact b (evidence: m-b)" in lines
    assert "- [m9] (4 May 2026) message m9" in lines
    assert "- [m10] user: message m10" in lines
    zh = assemble(plan(c, None, 8, W), c, facts, "发生了什么？", W)
    assert "- [a] （2026年4月30日）fact a (依据: m-a)" in zh.formatted.splitlines()


def test_a_session_that_answers_in_several_turns_rises_together() -> None:
    """Turns of the session that holds most of the best evidence gain over an equally
    matched turn of another session; a Fact counts in its sources' sessions but stands
    alone (gains nothing)."""
    c = cands(
        fact_near=[near("a", 0.97) | {"sources": ["m1"], "sessions": ["s1"]}],
        messages=[
            msg("m1", mv=0.95, session_id="s1"),
            msg("m2", mv=0.90, session_id="s2"),
            msg("m3", mv=0.89, session_id="s1"),
        ],
    )
    alone = rank_evidence(c, None, Weights(session=0.0))
    assert [r.id for r in alone if r.kind == "message"] == ["m1", "m2", "m3"]
    ranked = rank_evidence(c, None, Weights(session=0.5))
    turns = [r.id for r in ranked if r.kind == "message"]
    assert turns == ["m1", "m3", "m2"], "s1 holds the best evidence"
    scores = {r.id: r.score for r in ranked}
    before = {r.id: r.score for r in alone}
    s1 = before["a"] + before["m1"] + before["m3"]
    assert scores["m3"] == before["m3"] + min(0.5 * s1, before["m3"]), "at most doubled"
    assert scores["m2"] == before["m2"] + 0.5 * before["m2"]
    assert scores["a"] == before["a"], "a Fact gains nothing"


def test_a_session_never_carries_a_weak_turn_past_a_strong_one() -> None:
    """Many well-matched items in one session lift its turns, but only up to their own
    score: a turn of that session matching poorly stays below the best match elsewhere."""
    c = cands(
        fact_near=[near(f"f{i}", 0.99 - i / 100) | {"sessions": ["big"]} for i in range(8)],
        messages=[
            msg("best", mv=0.90, session_id="small"),
            *[msg(f"x{i}", mv=0.80 - i / 100, session_id=f"s{i}") for i in range(20)],
            *[msg(f"b{i}", mv=0.50 - i / 100, session_id="big") for i in range(8)],
        ],
    )
    ranked = [r.id for r in rank_evidence(c, None, Weights(session=0.5)) if r.kind == "message"]
    assert ranked[0] == "best"


def test_a_fact_from_another_session_is_not_pushed_down() -> None:
    """A preference told in another session keeps its place among the Facts however much
    one session matches."""
    c = cands(
        fact_near=[
            near("f1", 0.95) | {"sessions": ["s1"]},
            near("f2", 0.94) | {"sessions": ["s1"]},
            near("other", 0.93) | {"sessions": ["s2"]},
            near("f3", 0.92) | {"sessions": ["s1"]},
        ],
        messages=[msg(f"m{i}", mv=0.9 - i / 100, session_id="s1") for i in range(5)],
    )
    facts = [r.id for r in rank_evidence(c, None, Weights(session=1.0)) if r.kind == "fact"]
    assert facts == ["f1", "f2", "other", "f3"]


def test_one_session_keeps_the_order_of_its_turns() -> None:
    c = cands(
        fact_near=[near(f"f{i}", 0.9 - i / 100) | {"sessions": ["s"]} for i in range(30)],
        messages=[msg(f"m{i}", mv=0.95 - i / 100, session_id="s") for i in range(30)],
    )
    plain = rank_evidence(c, None, Weights(session=0.0))
    boosted = rank_evidence(c, None, Weights(session=1.0))
    for kind in ("fact", "message"):
        assert [r.id for r in boosted if r.kind == kind] == [r.id for r in plain if r.kind == kind]


def test_someone_elses_turn_counts_in_full_only_when_the_query_names_them() -> None:
    mine = msg("m1", role="user", event_type="message", mv=0.90, content="I hike most weekends")
    aunt = msg(
        "m2",
        role="user",
        event_type="message",
        rejected=True,
        rejected_reason="about someone else (my aunt), not the user",
        mv=0.95,
        content="my aunt adores orchids",
    )
    c = own_candidates(cands(messages=[aunt, mine]), "u1")
    about_me = assemble(plan(c, None, 8, W, "what should I do this weekend?"), c, {}, "q", W)
    assert [it.id for it in about_me.mid_term] == ["m1"], "her taste is not the user's memory"
    named = plan(c, None, 8, W, "what does my aunt like?")
    assert named.evidence[0].id == "m2", "the query names her: her turn counts in full"
    shown = assemble(named, c, {}, "what does my aunt like?", W)
    assert "about someone else" in shown.mid_term[0].reason


def test_a_query_about_someone_weighs_others_turns_as_any_rejected_turn() -> None:
    from service.recall import asks_about_others

    assert asks_about_others("那个住在海边的人，平时喜欢做什么？")
    assert asks_about_others("Who in my family likes jazz?")
    assert not asks_about_others("What should I cook tonight?")
    taste = msg(
        "m2",
        role="user",
        event_type="message",
        rejected=True,
        rejected_reason="about someone else (nephew): their taste, anecdote or advice",
        mv=0.95,
    )
    c = own_candidates(cands(messages=[taste]), "u1")
    asked = plan(c, None, 8, W, "who likes kites?").evidence[0]
    mine = plan(c, None, 8, W, "what should I buy?").evidence[0]
    assert asked.own == pytest.approx(mine.own * W.rejected / W.others)
