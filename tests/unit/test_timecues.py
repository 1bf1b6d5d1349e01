from datetime import UTC, datetime

from text.time_window import parse_time_cue

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


def test_a_date_that_names_its_year_is_that_day_month_or_year() -> None:
    day = parse_time_cue("What did she paint on October 13, 2023?", NOW)
    assert day is not None and (day.start, day.end) == (
        datetime(2023, 10, 13, tzinfo=UTC),
        datetime(2023, 10, 14, tzinfo=UTC),
    )
    for q in ("the spot she found on 1 February, 2023", "2023年2月1日找到的店"):
        w = parse_time_cue(q, NOW)
        assert w is not None and w.start == datetime(2023, 2, 1, tzinfo=UTC), q
    month = parse_time_cue("the class she started in December 2023", NOW)
    assert month is not None and (month.start.month, month.end) == (
        12,
        datetime(2024, 1, 1, tzinfo=UTC),
    )
    year = parse_time_cue("beach trips in 2023", NOW)
    assert year is not None and (year.start.year, year.end.year) == (2023, 2024)
    zh_year = parse_time_cue("2022年的旅行", NOW)
    assert zh_year is not None and zh_year.start == datetime(2022, 1, 1, tzinfo=UTC)
    last = parse_time_cue("a road trip last year", NOW)
    assert last is not None and (last.start, last.end) == (
        datetime(2025, 1, 1, tzinfo=UTC),
        datetime(2026, 1, 1, tzinfo=UTC),
    )
    # no year, no date: an anniversary or a number
    assert parse_time_cue("what do we do on May 3", NOW) is None
    assert parse_time_cue("the 2023 plan for bus 2023", NOW) is None
    assert parse_time_cue("February 30, 2023", NOW) is None


def test_only_the_asking_sentences_of_a_long_query_set_its_window() -> None:
    from text.time_window import asked_part

    now = datetime(2026, 11, 20, 19, tzinfo=UTC)
    chatty = "Last night I dreamt of a flood. Anyway, which gym does my aunt go to?"
    assert asked_part(chatty) == "Anyway, which gym does my aunt go to?"
    assert parse_time_cue(chatty, now) is None
    assert parse_time_cue("刚才路过花店，前天的雨真大。话说我姑姑养的是什么狗？", now) is None
    assert parse_time_cue("What did I order yesterday?", now) is not None
    assert parse_time_cue("我前天说的那家店叫什么？我想再去一次。", now) is not None
    assert asked_part("what did I cook last week") == "what did I cook last week"
