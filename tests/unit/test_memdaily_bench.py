"""bench.memdaily's procedure on a made-up trajectory (the benchmark's data is not here)."""

from __future__ import annotations

import random
from datetime import timedelta

from bench.memdaily import NOISE, parse_time, user_messages


def test_times_are_china_local() -> None:
    t = parse_time("2025年03月09日 周日 21:05")
    assert (t.hour, t.minute, t.utcoffset()) == (21, 5, timedelta(hours=8))


def test_a_user_gets_four_noise_messages_per_message_from_other_domains_only() -> None:
    traj = {
        "file": "01_simple_items",
        "tid": 3,
        "message_list": [
            {"mid": 0, "message": "我的台灯是上周买的。", "time": "2025年03月01日 周六 08:00"},
            {"mid": 1, "message": "台灯的颜色是白色。", "time": "2025年03月03日 周一 20:00"},
        ],
    }
    pool = {"items": ["同领域的话"] * 50, "roles": [f"别的话{i}" for i in range(50)]}
    uid, msgs = user_messages("simple", "items", traj, pool, random.Random(1))
    assert uid == "01_simple_items:3" and len(msgs) == 2 + NOISE * 2
    noise = [m for m in msgs if ":n" in m["id"]]
    assert all(m["content"].startswith("别的话") for m in noise), "never the same domain"
    times = [m["timestamp"] for m in msgs]
    assert times == sorted(times) and times[0] == "2025-03-01T08:00:00+08:00"
    assert {m["sessionId"] for m in msgs} <= {f"{uid}:2025-03-0{d}" for d in (1, 2, 3)}, (
        "one session per calendar day, within the trajectory's span"
    )
