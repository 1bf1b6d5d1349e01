"""Time decay of Summaries: per-kind rates, effective weight, status moves, ranking factor.

weight = retrieval_boost · exp(-decay_factor · age_days), age measured from event_end.

memory_status values:
- ``active``: recalled normally.
- ``deprioritized``: still recalled, ranked lower (automatic when the weight is low).
- ``archived``: kept for audit, not recalled (automatic when the weight is very low).
- ``deleted``: terminal; only the deletion path sets it, nothing here leaves it.
Automatic moves only go down (active → deprioritized → archived, skipping a step when the
weight is low enough). Raising a status back (restore, pin) is a manual action through the
API's status mutation; ``next_status`` never does it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime
from types import MappingProxyType

MEMORY_STATUSES = ("active", "deprioritized", "archived", "deleted")
_RANK = {status: i for i, status in enumerate(MEMORY_STATUSES)}

# Decay rate per Summary kind, per day. Half-life = ln 2 / rate.
DECAY_RATES: Mapping[str, float] = MappingProxyType(
    {
        "identity": 0.001,  # ~2 years
        "preference": 0.004,  # ~6 months
        "general": 0.01,  # ~10 weeks
        "timeline": 0.01,  # ~10 weeks
        "plan": 0.03,  # ~3 weeks
        "shopping_intent": 0.05,  # ~2 weeks
    }
)
DEFAULT_DEPRIORITIZE_BELOW = 0.3
DEFAULT_ARCHIVE_BELOW = 0.05
# Ranking multiplier per status; archived and deleted Summaries are not recalled.
_STATUS_FACTOR = {"active": 1.0, "deprioritized": 0.5, "archived": 0.0, "deleted": 0.0}


def decay_factor_for(kind: str) -> float:
    return DECAY_RATES.get(kind, DECAY_RATES["general"])


def half_life_days(decay_factor: float) -> float:
    return math.inf if decay_factor <= 0 else math.log(2) / decay_factor


def age_days(event_end: datetime, now: datetime) -> float:
    """Days from event_end to now; 0 for events in the future. Naive times count as UTC."""
    seconds = (_utc(now) - _utc(event_end)).total_seconds()
    return max(seconds, 0.0) / 86400.0


def effective_weight(
    decay_factor: float, event_end: datetime, now: datetime, retrieval_boost: float = 1.0
) -> float:
    if decay_factor < 0:
        raise ValueError("decay_factor must be >= 0")
    if retrieval_boost < 0:
        raise ValueError("retrieval_boost must be >= 0")
    return retrieval_boost * math.exp(-decay_factor * age_days(event_end, now))


def next_status(
    current: str,
    weight: float,
    deprioritize_below: float = DEFAULT_DEPRIORITIZE_BELOW,
    archive_below: float = DEFAULT_ARCHIVE_BELOW,
) -> str:
    """The status a Summary should have at this weight; never raises a status."""
    if current not in _RANK:
        raise ValueError(f"unknown memory_status: {current!r}")
    if not 0 <= archive_below <= deprioritize_below:
        raise ValueError("need 0 <= archive_below <= deprioritize_below")
    if weight < archive_below:
        target = "archived"
    elif weight < deprioritize_below:
        target = "deprioritized"
    else:
        target = "active"
    return target if _RANK[target] > _RANK[current] else current


def rank_factor(memory_status: str, retrieval_boost: float = 1.0) -> float:
    """Recall's multiplier for a Summary: its status factor × its retrieval boost.

    Age is not a factor: it lowers the status (``next_status``), which lowers this."""
    if memory_status not in _STATUS_FACTOR:
        raise ValueError(f"unknown memory_status: {memory_status!r}")
    return _STATUS_FACTOR[memory_status] * max(retrieval_boost, 0.0)


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
