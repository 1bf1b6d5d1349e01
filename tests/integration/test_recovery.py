"""Processing cut between its transactions: past the sync budget, or by an outage."""

from __future__ import annotations

from typing import Any

import pytest

from core.errors import StorageUnavailable
from core.settings import Settings
from service.consolidation import Consolidating, Outcome
from service.memory import Memory
from tests.integration.helpers import seed


async def counts(memory: Memory) -> dict[str, Any]:
    rows = await memory.db.rows(
        """MATCH (m:Message) WITH collect(DISTINCT m.status) AS statuses
        OPTIONAL MATCH (f:Fact {validity: 'active'})
        WITH statuses, count(f) AS facts, count(CASE WHEN f.topic IS NULL THEN 1 END) AS unfiled
        OPTIONAL MATCH (s:Summary {validity: 'active'})
        WITH statuses, facts, unfiled, count(s) AS summaries
        OPTIONAL MATCH (u:User) WHERE u.unconsolidated_at IS NOT NULL
        RETURN statuses, facts, unfiled, summaries, count(u) AS marked"""
    )
    return dict(rows[0])


async def test_overrun_of_the_sync_budget_finishes_in_the_background(
    settings: Settings, memory: Memory
) -> None:
    late = Memory(
        memory.db, settings.model_copy(update={"process_timeout_s": 0.001}), memory.pipeline
    )
    res = await late.add_messages("tenant-a", seed("zh"))
    assert res.processed == 0 and len(res.accepted) == 10  # answered before processing ended
    await late.drain(120)
    c = await counts(memory)
    assert c["statuses"] == ["processed"]
    assert c["facts"] >= 3 and c["unfiled"] == 0 and c["summaries"] >= 1 and c["marked"] == 0


async def test_worker_finishes_a_consolidation_cut_by_an_outage(
    memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    pipeline = memory.pipeline
    assert pipeline is not None
    real = pipeline.consolidation.run_many
    calls = 0

    async def outage_once(users: list[Consolidating]) -> list[Outcome]:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise StorageUnavailable("storage unavailable: injected")
        return await real(users)

    monkeypatch.setattr(pipeline.consolidation, "run_many", outage_once)
    res = await memory.add_messages("tenant-a", seed("en"))
    assert res.processed == 0 and len(res.accepted) == 10
    cut = await counts(memory)  # facts written, messages done, nothing filed yet
    assert cut["statuses"] == ["processed"]
    assert cut["facts"] >= 3 and cut["unfiled"] == cut["facts"] and cut["summaries"] == 0
    assert cut["marked"] == 1

    assert await pipeline.process_pending() == 0  # no Messages left, only the consolidation
    done = await counts(memory)
    assert done["facts"] == cut["facts"] and done["unfiled"] == 0 and done["summaries"] >= 1
    assert done["marked"] == 0
    assert await pipeline.process_pending() == 0 and calls == 2  # nothing more to do
