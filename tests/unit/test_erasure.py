"""Re-deriving a kept Fact without a deleted Message (graph.deletion.revise)."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

from extract.types import EntityRef, FactDraft, FactRecord
from graph.deletion import revise
from graph.fact_writes import provenance
from graph.ids import entity_id
from service.drafts import group_drafts, merge_drafts

T = datetime(2026, 1, 5, 8, tzinfo=UTC)
ALICE = EntityRef("Alice", "PERSON", "alice")
ACME = EntityRef("Acme", "ORG", "acme")


def draft(
    source: str, hours: int, anchors: tuple[str, ...] = (), ents: tuple[EntityRef, ...] = ()
) -> FactDraft:
    at = T + timedelta(hours=hours)
    return FactDraft(
        content="The user is vegetarian",
        kind="preference",
        source_message_ids=(source,),
        time_start=at,
        time_end=at,
        lang="en",
        entities=ents,
        key="preference:diet",
        anchors=anchors,
    )


def source(mid: str, session: str, hours: int) -> dict[str, Any]:
    return {
        "message_id": mid,
        "session_id": session,
        "event_type": "message",
        "timestamp": T + timedelta(hours=hours),
    }


def kept_row(parts: list[FactDraft] | None, remaining: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "fact_id": "f_1",
        "source_message_ids": ["gone", "k1", "k2"],
        "session_ids": ["s-gone", "s1"],
        "provenance": None if parts is None else [provenance("t", "u", d) for d in parts],
        "mentions": [
            {
                "entity_id": entity_id("t", "u", e),
                "name": e.name,
                "type": e.type,
                "normalized": e.normalized,
            }
            for e in (ALICE, ACME)
        ],
        "sources": remaining,
    }


def test_revision_keeps_only_what_remaining_sources_brought() -> None:
    parts = [
        draft("gone", 0, ("order:X1",), (ALICE,)),
        draft("k1", 5, ("order:K1",), (ACME,)),
        draft("k2", 9),
    ]
    r = revise(kept_row(parts, [source("k1", "s1", 5), source("k2", "s1", 9)]))
    assert r.source_message_ids == ("k1", "k2") and r.session_ids == ("s1",)
    assert r.anchors == ("order:K1",)
    assert (r.time_start, r.time_end) == (T + timedelta(hours=5), T + timedelta(hours=9))
    assert r.entity_names == ("Acme",) and r.dropped_entities == (entity_id("t", "u", ALICE),)
    assert all("gone" not in p and "X1" not in p for p in r.provenance)
    rec = FactRecord(
        fact_id="f_1",
        user_id="u",
        content="The user is vegetarian",
        kind="preference",
        source_message_ids=("gone", "k1", "k2"),
        time_start=T,
        time_end=T,
        lang="en",
        entities=(ALICE, ACME),
        session_ids=("s-gone", "s1", "s-corrected"),
        anchors=("order:X1", "order:K1"),
    )
    after = r.apply(rec)
    assert after.entities == (ACME,) and after.anchors == ("order:K1",)
    assert after.session_ids == ("s1", "s-corrected"), "inherited sessions stay"


def test_a_joint_contribution_goes_whole_and_without_provenance_all_is_dropped() -> None:
    joint = replace(draft("gone", 0, ("order:X1",), (ALICE,)), source_message_ids=("gone", "k1"))
    for parts in ([joint], None):
        r = revise(kept_row(parts, [source("k1", "s1", 5)]))
        assert r.source_message_ids == ("k1",) and r.anchors == ()
        assert r.time_start == r.time_end == T + timedelta(hours=5)
    assert revise(kept_row([joint], [source("k1", "s1", 5)])).entity_names == ()
    assert revise(kept_row(None, [source("k1", "s1", 5)])).entity_names is None


def test_identical_drafts_merge_all_their_sources() -> None:
    a, b = draft("m1", 0, ("order:A",)), draft("m2", 3, ("order:B",))
    groups = group_drafts("t", "u", [a, b, draft("m1", 0)])
    (parts,) = groups.values()
    merged = merge_drafts(parts)
    assert merged.source_message_ids == ("m1", "m2")
    assert merged.anchors == ("order:A", "order:B")
    assert (merged.time_start, merged.time_end) == (T, T + timedelta(hours=3))
