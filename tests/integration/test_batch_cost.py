"""A batch's work follows what it changes, not the user's history (issue 19): a Fact
re-merged with nothing new stays consolidated, bare slots are resolved by prefix lookups,
and the reads consolidation makes decode their times. Real Neo4j."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest
from neo4j import AsyncDriver, AsyncSession

from extract.types import FactDraft
from graph.db import Database
from graph.fact_writes import NewFact, active_slots, write_facts
from graph.fencing import user_token
from graph.filed_facts import dirty_facts
from graph.pending import event_window, pending_messages
from graph.topic_summary_writes import summaries_around
from service.memory import Memory

TENANT = "tenant-a"
USER = "u-cost"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def msg(mid: str, content: str, minute: int) -> dict[str, Any]:
    return {
        "id": mid,
        "userId": USER,
        "sessionId": "s1",
        "role": "user",
        "content": content,
        "timestamp": (T0 + timedelta(minutes=minute)).isoformat(),
    }


async def dirty(db: Database) -> dict[str, bool]:
    rows = await db.rows(
        "MATCH (f:Fact) WHERE f.user_id = $u RETURN f.fact_id AS id, f.dirty AS d", u=USER
    )
    return {r["id"]: bool(r["d"]) for r in rows}


def draft(content: str, sources: tuple[str, ...], minute: int, **kw: Any) -> FactDraft:
    return FactDraft(
        content=content,
        kind="behavior_pattern",
        source_message_ids=sources,
        time_start=T0 + timedelta(minutes=minute),
        time_end=T0 + timedelta(minutes=minute),
        lang="en",
        key=f"behavior_pattern:{content}",
        confidence=0.7,
        **kw,
    )


async def write(memory: Memory, facts: list[NewFact]) -> None:
    token = await user_token(memory.db, TENANT, USER)
    await write_facts(memory.db, TENANT, USER, facts, {}, token)


async def consolidate(memory: Memory) -> None:
    assert memory.pipeline is not None
    await memory.pipeline.consolidate(TENANT, USER)


async def test_a_remerge_that_brings_nothing_new_leaves_the_fact_consolidated(
    memory: Memory,
) -> None:
    items = [msg(f"e{i}", f"viewed item {i}", i) for i in range(3)]
    await Memory(memory.db, memory.settings, None).add_messages(TENANT, items)
    a = NewFact("f_a", draft("User often views oak tables", ("e0", "e1"), 0), None)
    b = NewFact("f_b", draft("User often views steel lamps", ("e1",), 1), None)
    await write(memory, [a, b])
    assert await dirty(memory.db) == {"f_a": True, "f_b": True}
    await consolidate(memory)
    assert await dirty(memory.db) == {"f_a": False, "f_b": False}

    # the window aggregated again: the same two Facts, nothing new in them
    await write(memory, [a, b])
    assert await dirty(memory.db) == {"f_a": False, "f_b": False}

    # one of them gains a source, the other a new confidence: both to re-plan
    grown = replace(a, draft=replace(a.draft, source_message_ids=("e0", "e1", "e2")))
    surer = replace(b, draft=replace(b.draft, confidence=0.8))
    await write(memory, [grown, surer])
    assert await dirty(memory.db) == {"f_a": True, "f_b": True}
    await consolidate(memory)
    await write(memory, [grown, replace(b, draft=replace(b.draft, labels=("home",)))])
    assert await dirty(memory.db) == {"f_a": False, "f_b": True}


async def test_bare_slots_resolve_by_prefix_to_active_slots_only(memory: Memory) -> None:
    items = [msg(f"p{i}", f"prescription note {i}", i) for i in range(3)]
    await Memory(memory.db, memory.settings, None).add_messages(TENANT, items)
    old = draft("Old glasses prescription", ("p0",), 0, slot="prescription:glass")
    new = draft("New glasses prescription", ("p1",), 1, slot="prescription:glass")
    other = draft("Prescriptions shop", ("p2",), 2, slot="prescriptions")
    await write(memory, [NewFact("f_old", old, None)])
    await write(memory, [NewFact("f_new", new, None), NewFact("f_other", other, None)])
    found = await active_slots(memory.db, TENANT, USER, ["prescription", "nothing"])
    # a prefix, not a head: the caller compares heads; superseded Facts are not read
    assert sorted(found) == ["prescription:glass", "prescriptions"]
    assert await active_slots(memory.db, TENANT, USER, []) == []


async def test_event_window_is_bounded_and_keeps_the_batch(memory: Memory) -> None:
    events = [
        {**msg(f"v{i}", f"view: item {i}", i), "eventType": "view", "page": "list"}
        for i in range(5)
    ]
    chat = [msg("t0", "I like tea.", 2)]
    await Memory(memory.db, memory.settings, None).add_messages(TENANT, events + chat)
    pending = await pending_messages(memory.db, TENANT, USER)
    assert [m.timestamp for m in pending][:3] == [T0 + timedelta(minutes=i) for i in (0, 1, 2)]
    until = T0 + timedelta(minutes=4)
    # the latest 2 events of the window, the batch's own (v0) whatever its time, no chat
    window = await event_window(memory.db, TENANT, USER, T0, until, limit=2, batch=["v0"])
    assert [m.message_id for m in window] == ["v0", "v3", "v4"]
    assert window[0].timestamp == T0 and window[0].timestamp.utcoffset() == timedelta(0)
    every = await event_window(memory.db, TENANT, USER, T0, until, limit=200, batch=[])
    assert [m.message_id for m in every] == [f"v{i}" for i in range(5)]


async def test_consolidation_reads_decode_times(memory: Memory) -> None:
    await Memory(memory.db, memory.settings, None).add_messages(
        TENANT, [msg("t0", "I like tea.", 0), msg("t1", "I like green tea.", 3)]
    )
    f = NewFact("f_tea", draft("User likes tea", ("t0", "t1"), 0), None)
    await write(memory, [f])
    (x,) = await dirty_facts(memory.db, TENANT, USER)
    assert x.fact.time_start == T0 and x.fact.time_end == T0
    assert x.fact.time_start.utcoffset() == timedelta(0)


async def test_a_batch_gives_each_summary_the_mean_of_its_facts_vectors(memory: Memory) -> None:
    items = [
        msg("m-v1", "I'm allergic to peanuts.", 0),
        msg("m-v2", "I live in Lyon and I work as a nurse.", 1),
        msg("m-v3", "I prefer window seats on long flights.", 2),
    ]
    await memory.add_messages(TENANT, items)
    rows = await memory.db.rows(
        """MATCH (s:Summary {validity: 'active'}) WHERE s.user_id = $u
        MATCH (f:Fact)-[:SUPPORTS]->(s)
        RETURN s.summary_id AS id, s.embedding AS sv, collect(f.embedding) AS fvs""",
        u=USER,
    )
    assert rows, "the batch planned no Summary"
    for r in rows:
        mean = np.asarray(r["fvs"], dtype=np.float32).mean(axis=0)
        mean /= np.linalg.norm(mean)
        assert float(np.dot(mean, np.asarray(r["sv"]))) > 0.9999, r["id"]


async def test_a_user_batch_runs_in_eight_transactions(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fixed cost of a user batch (what a user sending one message at a time pays per
    message): the lease claim, three read transactions (token, pending Messages and
    events; slots and known Facts; consolidation's reads), the conflict candidates, the
    Facts' write, consolidation's write and the lease's release."""
    assert memory.pipeline is not None
    events = [
        {**msg(f"v{i}", f"search: oak table {i}", i), "role": "event", "eventType": "search"}
        for i in range(3)
    ]
    chat = [msg("t0", "I live in Lyon and I'm allergic to peanuts.", 4)]
    await Memory(memory.db, memory.settings, None).add_messages(TENANT, events + chat)
    counts: Counter[str] = Counter()

    def counting(cls: type, name: str) -> None:
        real = getattr(cls, name)

        async def counted(self: Any, *a: Any, **k: Any) -> Any:
            counts[name] += 1
            return await real(self, *a, **k)

        monkeypatch.setattr(cls, name, counted)

    counting(AsyncDriver, "execute_query")  # a single query
    for name in ("begin_transaction", "execute_read", "execute_write"):
        counting(AsyncSession, name)
    report = await memory.pipeline.process_user(TENANT, USER)
    assert report.messages == 4 and report.facts >= 2 and report.summaries >= 1
    assert counts == {
        "execute_query": 2,  # claim, release
        "begin_transaction": 4,  # the read scopes: what is due, slots, conflicts, consolidation
        "execute_write": 2,  # Facts, consolidation
    }, counts


async def test_a_batch_plans_again_only_the_summaries_it_can_change(memory: Memory) -> None:
    """Incremental consolidation (issue 40): in a Topic of many Summaries, consolidation
    reads the Summaries a batch's Facts support, those of its sessions and the Topic's
    latest few, never the rest, which stay as they were, whatever the Topic's size."""
    day = 24 * 60
    notes = [
        "User inspected beehive {} and counted frames of capped brood",
        "User inspected beehive {} and found the queen laying",
    ]
    items = [
        {**msg(f"b{i}", notes[i % 2].format(i), i * 2 * day), "sessionId": f"hive-{i}"}
        for i in range(9)
    ]
    await Memory(memory.db, memory.settings, None).add_messages(TENANT, items)
    for i, m in enumerate(items):  # one batch a visit, two days apart: unlinked groups
        f = NewFact(f"f_hive{i}", draft(m["content"], (m["id"],), i * 2 * day), None)
        await write(memory, [f])
        await consolidate(memory)

    async def active() -> dict[str, tuple[str, int]]:
        rows = await memory.db.rows(
            "MATCH (s:Summary {validity: 'active'}) WHERE s.user_id = $u "
            "RETURN s.summary_id AS id, s.topic AS topic, s.version AS v",
            u=USER,
        )
        return {r["id"]: (r["topic"], r["v"]) for r in rows}

    before = await active()
    by_topic = Counter(t for t, _ in before.values())
    topic, n = by_topic.most_common(1)[0]
    assert n >= 5, by_topic  # a Topic of many Summaries

    # the read is bounded by what it is asked, not by the Topic
    latest = await summaries_around(memory.db, TENANT, USER, [topic], [], [], recent=3)
    assert len(latest) == 3
    one = await summaries_around(memory.db, TENANT, USER, [topic], ["f_hive0"], [], recent=0)
    assert [c.source_facts for c in one] == [("f_hive0",)]
    session = await summaries_around(memory.db, TENANT, USER, [topic], [], ["hive-4"], recent=0)
    assert [c.source_facts for c in session] == [("f_hive4",)]

    # a new visit: every Summary it cannot change stays as it was
    later = {
        **msg("b9", "User inspected beehive 9 and added a super", 18 * day),
        "sessionId": "hive-9",
    }
    await Memory(memory.db, memory.settings, None).add_messages(TENANT, [later])
    await write(memory, [NewFact("f_hive9", draft(later["content"], ("b9",), 18 * day), None)])
    await consolidate(memory)
    after = await active()
    assert set(before) <= set(after), "no earlier Summary was retired"
    assert {k: after[k] for k in before} == before
    assert len(after) == len(before) + 1
