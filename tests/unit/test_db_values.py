from datetime import UTC, datetime, timedelta, timezone

from graph.db import instant, instants


def test_instant_keeps_the_offset_and_the_microseconds() -> None:
    shanghai = timezone(timedelta(hours=8))
    t = datetime(2026, 9, 2, 0, 53, 5, 123456, tzinfo=shanghai)
    seconds = int((t - datetime(1970, 1, 1, tzinfo=UTC)).total_seconds())
    got = instant([seconds, 123456, 8 * 3600])
    assert got == t
    assert got is not None and got.utcoffset() == timedelta(hours=8)
    assert got.microsecond == 123456


def test_a_missing_time_stays_missing() -> None:
    assert instant(None) is None
    assert instant([None, None, None]) is None


def test_instants_only_touches_time_keys() -> None:
    row = {"timestamp": [0, 0, 0], "content": [1, 2, 3], "sources": [{"timestamp": [60, 0, 0]}]}
    out = instants(row)
    assert out["timestamp"] == datetime(1970, 1, 1, tzinfo=UTC)
    assert out["content"] == [1, 2, 3]
    assert out["sources"][0]["timestamp"] == datetime(1970, 1, 1, 0, 1, tzinfo=UTC)
