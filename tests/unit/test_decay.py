"""Decay: weights, status moves, ranking factor."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from consolidation.decay import (
    DECAY_RATES,
    MEMORY_STATUSES,
    age_days,
    decay_factor_for,
    effective_weight,
    half_life_days,
    next_status,
    rank_factor,
)
from consolidation.summaries import build_summaries
from tests.unit.test_topics import make_fact, seed_facts

NOW = datetime(2025, 7, 1, tzinfo=UTC)


def test_old_shopping_intent_is_deprioritized_but_identity_is_not() -> None:
    shoes = build_summaries("running shoes", seed_facts("zh"), NOW)[0]
    ident = build_summaries(
        "identity", [make_fact("id", "The user's native language is Portuguese", "identity")]
    )[0]
    assert shoes.kind == "shopping_intent" and ident.kind == "identity"
    end = NOW - timedelta(days=30)  # same age for both
    w_shoes = effective_weight(shoes.decay_factor, end, NOW)
    w_ident = effective_weight(ident.decay_factor, end, NOW)
    assert next_status("active", w_shoes) == "deprioritized"
    assert next_status("active", w_ident) == "active"


def test_effective_weight_is_exponential_in_days() -> None:
    end = NOW - timedelta(days=10)
    assert effective_weight(0.1, end, NOW) == pytest.approx(math.exp(-1.0))
    assert effective_weight(0.1, end, NOW, retrieval_boost=2.0) == pytest.approx(2 * math.exp(-1.0))
    assert effective_weight(0.1, NOW + timedelta(days=5), NOW) == 1.0  # future event
    naive = datetime(2025, 6, 21)
    assert effective_weight(0.1, naive, NOW) == pytest.approx(math.exp(-1.0))
    assert age_days(end, NOW) == pytest.approx(10)
    assert half_life_days(decay_factor_for("shopping_intent")) == pytest.approx(13.86, abs=0.01)
    assert half_life_days(0) == math.inf
    with pytest.raises(ValueError):
        effective_weight(-0.1, end, NOW)


def test_status_only_moves_down_and_deleted_is_terminal() -> None:
    assert next_status("active", 0.9) == "active"
    assert next_status("active", 0.2) == "deprioritized"
    assert next_status("active", 0.01) == "archived"  # skips a step when very low
    assert next_status("deprioritized", 0.9) == "deprioritized"  # restore is manual
    assert next_status("archived", 0.9) == "archived"
    assert next_status("deleted", 0.0) == "deleted"
    assert next_status("deleted", 5.0) == "deleted"
    assert next_status("active", 0.5, deprioritize_below=0.6, archive_below=0.1) == (
        "deprioritized"
    )
    with pytest.raises(ValueError):
        next_status("gone", 0.5)
    with pytest.raises(ValueError):
        next_status("active", 0.5, deprioritize_below=0.1, archive_below=0.2)


def test_rank_factor_is_status_times_boost() -> None:
    assert rank_factor("active") == 1.0
    assert rank_factor("active", retrieval_boost=1.5) == pytest.approx(1.5)
    assert rank_factor("deprioritized") == pytest.approx(0.5)
    assert rank_factor("active", retrieval_boost=-1.0) == 0.0
    for hidden in ("archived", "deleted"):
        assert rank_factor(hidden, retrieval_boost=3.0) == 0.0
    assert set(MEMORY_STATUSES) == {"active", "deprioritized", "archived", "deleted"}
    with pytest.raises(ValueError):
        rank_factor("pinned")


def test_unknown_kind_uses_general_rate() -> None:
    assert decay_factor_for("something else") == DECAY_RATES["general"]
