from datetime import UTC, datetime

from extract.timecues import parse_time_cue

NOW = datetime(2026, 12, 1, 15, 0, tzinfo=UTC)  # a Tuesday


def test_yesterday_both_languages() -> None:
    for q in ("昨天看的鞋还有推荐吗？", "Any more picks from the shoes I looked at yesterday?"):
        w = parse_time_cue(q, NOW)
        assert w is not None
        assert w.start == datetime(2026, 11, 30, tzinfo=UTC)
        assert w.end == datetime(2026, 12, 1, tzinfo=UTC)


def test_day_before_yesterday_wins_over_yesterday() -> None:
    w = parse_time_cue("前天说的那个", NOW)
    assert w is not None and w.start.day == 29


def test_last_week_and_months() -> None:
    w = parse_time_cue("what did I say last week", NOW)
    assert w is not None and w.start == datetime(2026, 11, 23, tzinfo=UTC)
    w = parse_time_cue("the trip in March", NOW)
    assert w is not None and (w.start.month, w.start.year, w.end.month) == (3, 2026, 4)
    w = parse_time_cue("三月份的旅行", NOW)
    assert w is not None and w.start.month == 3
    w = parse_time_cue("in december", NOW)
    assert w is not None and w.start.year == 2026


def test_no_cue() -> None:
    assert parse_time_cue("running shoes under 800", NOW) is None
    assert parse_time_cue("size 42", NOW) is None
