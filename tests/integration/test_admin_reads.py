"""`Memory.show` / `gumem show`: one node by id read through the neomodel classes gives the
same record as the Cypher reads (graph/reads.py), and never another tenant's node."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from core.errors import InputError, NotFoundError
from core.inputs import Page
from core.settings import ROOT, Settings
from service.memory import Memory
from service.records import StoredMessage
from tests.integration.helpers import seed

A, B = "tenant-a", "tenant-b"
# a later turn that changes the budget: the Summary gets a new version (SUPERSEDES)
LATER = {
    "id": "m-later",
    "userId": "u-seed",
    "sessionId": "s-day2",
    "role": "user",
    "content": "预算改成 1200 以内，想要缓震好一点的慢跑鞋。",
    "timestamp": "2026-12-01T09:00:00+08:00",
}


async def _ids(memory: Memory, label: str, key: str) -> list[str]:
    # every node of the label, superseded versions included (test-only Cypher)
    rows = await memory.db.rows(
        f"MATCH (n:{label}) WHERE n.tenant = $t RETURN n.{key} AS id ORDER BY id", t=A
    )
    return [r["id"] for r in rows]


async def test_show_reads_the_same_record_as_cypher(memory: Memory) -> None:
    await memory.add_messages(A, seed("zh"))
    await memory.add_messages(A, [LATER])
    messages = [m["id"] for m in seed("zh")] + [LATER["id"]]
    facts = await _ids(memory, "Fact", "fact_id")
    summaries = await _ids(memory, "Summary", "summary_id")
    topics = await memory.topics(A, "u-seed", Page(100))
    assert facts and summaries and topics, "the seed made Facts, Summaries and Topics"

    by_cypher = await memory.messages_by_ids(A, messages)
    assert len(by_cypher) == len(messages)
    for mid in messages:
        assert await memory.show(A, mid) == by_cypher[mid]
    fact_records = await memory.facts_by_ids(A, facts)
    assert any(f.sources for f in fact_records.values())
    for fid in facts:
        assert await memory.show(A, fid) == fact_records[fid]
    summary_records = await memory.summaries_by_ids(A, summaries)
    assert any(s.entities for s in summary_records.values())
    assert any(s.supersedes for s in summary_records.values()), "a version was replaced"
    for sid in summaries:
        assert await memory.show(A, sid, "Summary") == summary_records[sid]
    for t in topics:
        assert await memory.show(A, t.topic_id) == t


async def test_show_never_reads_another_tenants_node(memory: Memory) -> None:
    await memory.add_messages(A, seed("zh"))
    fact = (await _ids(memory, "Fact", "fact_id"))[0]
    summary = (await _ids(memory, "Summary", "summary_id"))[0]
    topic = (await memory.topics(A, "u-seed", Page(1)))[0].topic_id
    for node_id in ("m1", fact, summary, topic):
        assert await memory.show(A, node_id) is not None
        with pytest.raises(NotFoundError) as err:
            await memory.show(B, node_id)
        assert repr(node_id) in str(err.value)
    # the same client id in two tenants: each reads its own Message
    other = {**seed("zh")[0], "content": "tenant b's own turn"}
    await memory.add_messages(B, [other])
    a, b = await memory.show(A, "m1"), await memory.show(B, "m1")
    assert isinstance(a, StoredMessage) and isinstance(b, StoredMessage)
    assert (a.content, b.content) == (seed("zh")[0]["content"], "tenant b's own turn")


async def test_show_kinds_and_ids_that_look_alike(memory: Memory) -> None:
    # a client's Message id may look like a Fact's: without a kind it is still found
    turn = {**seed("zh")[0], "id": "f_client-chosen"}
    await memory.add_messages(A, [turn])
    found = await memory.show(A, "f_client-chosen")
    assert isinstance(found, StoredMessage) and found.message_id == "f_client-chosen"
    with pytest.raises(NotFoundError, match="no Fact with id 'f_client-chosen'"):
        await memory.show(A, "f_client-chosen", "Fact")
    with pytest.raises(NotFoundError, match="no Message with id 'nothing-here'"):
        await memory.show(A, "nothing-here")
    with pytest.raises(InputError, match="kind"):
        await memory.show(A, "m1", "Entity")
    with pytest.raises(InputError, match="id"):
        await memory.show(A, "bad id with spaces")


async def test_gumem_show_cli(memory: Memory, settings: Settings) -> None:
    await memory.add_messages(A, seed("zh"))
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GUMEM_")},
        "GUMEM_NEO4J_URI": str(settings.neo4j_uri),
        "GUMEM_NEO4J_PASSWORD": settings.neo4j_password.get_secret_value(),
    }

    def show(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "doors.cli", "show", *args],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    done = show("m1", "--tenant", A, "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    expected = await memory.show(A, "m1")
    assert isinstance(expected, StoredMessage)
    assert out["kind"] == "Message" and out["message_id"] == "m1"
    assert out["content"] == expected.content
    missing = show("m1", "--tenant", B)
    # a missing id is an error the command reports (exit 1), not a usage error (2)
    assert missing.returncode == 1 and "'m1'" in missing.stderr and not missing.stdout
