"""bench/goals.py: a long-lived user's stream of recurring goals, new content in every message,
deterministic, in time order, Chinese and English, about one correction in twelve."""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import datetime
from itertools import pairwise

from bench.goals import GOALS, goal_stream, labelled_stream

CJK = re.compile(r"[\u4e00-\u9fff]")
OLD = re.compile(r"(?:not |than |不是|之前说的)(\d[\d.:]*\d|\d)")
KEYS = {"id", "userId", "sessionId", "role", "content", "timestamp", "eventType"}


def test_deterministic_for_a_seed_and_in_the_wire_shape() -> None:
    a = goal_stream(500, 3, "u1")
    assert a == goal_stream(500, 3, "u1")
    assert a != goal_stream(500, 4, "u1")
    assert len(a) == 500
    assert len({m["id"] for m in a}) == 500
    for m in a:
        assert m.keys() >= KEYS
        assert m["userId"] == "u1"
        assert m["eventType"] == "message"
        assert m["role"] in ("user", "assistant")
        assert m["content"]
    assert sum(m["role"] == "user" for m in a) > 0.7 * len(a)
    assert any(m["role"] == "assistant" for m in a)
    assert goal_stream(0, 3, "u1") == []


def test_timestamps_increase_and_carry_an_offset() -> None:
    times = [datetime.fromisoformat(m["timestamp"]) for m in goal_stream(3000, 7, "u")]
    assert all(t.utcoffset() is not None for t in times)
    assert all(a < b for a, b in pairwise(times))
    assert (times[-1] - times[0]).days >= 30  # spread over many days


def test_both_languages_and_some_mixed_sessions() -> None:
    msgs = goal_stream(2000, 7, "u")
    zh = [bool(CJK.search(m["content"])) for m in msgs]
    assert 0.35 < sum(zh) / len(msgs) < 0.65
    langs: dict[str, set[bool]] = defaultdict(set)
    for m, z in zip(msgs, zh, strict=True):
        langs[m["sessionId"]].add(z)
    assert sum(len(v) == 2 for v in langs.values()) >= 10


def test_about_one_message_in_twelve_is_a_correction_of_a_value_said_before() -> None:
    items = labelled_stream(2000, 7, "u")
    kinds = [k for _, k, _ in items]
    share = kinds.count("correction") / len(items)
    assert 0.04 <= share <= 0.15
    # the old value a correction names was said before, in the same goal (in either language)
    said: dict[str, list[str]] = defaultdict(list)
    for goal, kind, m in items:
        text = m["content"].replace(",", "")
        if kind == "correction":
            old = OLD.search(text)
            assert old, m["content"]
            assert re.search(rf"(?<![\d.:]){re.escape(old[1])}(?![\d:]|\.\d)", " ".join(said[goal]))
        if m["role"] == "user":
            said[goal].append(text)


def test_new_content_at_the_end_of_a_long_stream() -> None:
    texts = [m["content"] for m in goal_stream(20000, 7, "u") if m["role"] == "user"]
    earlier = set(texts[:-200])
    new = sum(t not in earlier for t in texts[-200:])
    assert new >= 0.9 * 200


def test_each_goal_recurs_across_many_sessions_and_days() -> None:
    sessions: dict[str, set[str]] = defaultdict(set)
    days: dict[str, set[str]] = defaultdict(set)
    for goal, _, m in labelled_stream(2000, 7, "u"):
        sessions[goal].add(m["sessionId"])
        days[goal].add(m["timestamp"][:10])
    assert set(sessions) == set(GOALS)
    for goal in GOALS:
        assert len(sessions[goal]) >= 20, goal
        assert len(days[goal]) >= 10, goal
