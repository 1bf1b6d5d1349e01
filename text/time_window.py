"""The window a recall query's time cue points at (timecues.py has the day, week and month
words): a date that names its year, "昨天", "上周", "yesterday", "last month", "in March";
only the sentences of a query that ask are read."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from text import rx
from text.lang import parse_cn_int
from text.timecues import MONTHS_EN, Span, _day, _month, _week, month_index


@dataclass(frozen=True)
class Window:
    """[start, end): the half-open range a query's cue names, and the cue's own words."""

    start: datetime
    end: datetime
    cue: str


def _recalled_month(now: datetime, month: int, back_years: int = 0) -> Span:
    year = now.year - back_years
    if month > now.month and back_years == 0:
        year -= 1  # "in March" said in January means last March
    return _month(now, year, month)


_DAY_CUES: list[tuple[rx.Pattern, int]] = [
    (rx.compile(r"大前天|three days ago", rx.IGNORECASE), 3),
    (rx.compile(r"前天|day before yesterday", rx.IGNORECASE), 2),
    (rx.compile(r"昨天|昨日|昨晚|yesterday|last night", rx.IGNORECASE), 1),
    (rx.compile(r"今天|今日|today|this morning|tonight", rx.IGNORECASE), 0),
]
_WEEK_CUES: list[tuple[rx.Pattern, int]] = [
    (rx.compile(r"上周|上个星期|上星期|last week", rx.IGNORECASE), 1),
    (rx.compile(r"这周|本周|this week", rx.IGNORECASE), 0),
]
_MONTH_EN = rx.compile(r"\bin (" + "|".join(MONTHS_EN) + r")\b", rx.IGNORECASE)
# "(?:\D|$)": not before a digit ("12月3" is no month); the cue is the group "cue"
_MONTH_ZH = rx.compile(r"(?P<cue>(十[一二]?|[一二三四五六七八九]|1[0-2]|[1-9])月)(?:\D|$)")
_LAST_MONTH = rx.compile(r"上个月|last month", rx.IGNORECASE)
_LAST_YEAR = rx.compile(r"去年|last year", rx.IGNORECASE)
# A date that names its year: "October 13, 2023", "13 October 2023", "December 2023",
# "in 2022", "2023年5月3日", "2023年5月", "2023年". The year is what makes it a date, not an
# anniversary ("on May 3" stays no cue: it may be any year's).
_MON = "(?P<mon>" + "|".join(MONTHS_EN) + ")"
_YEAR = r"(?P<year>(?:19|20)\d\d)\b"
_DATED_EN = rx.compile(
    r"\b(?:" + _MON + r"\s+(?:(?P<d1>\d{1,2})(?:st|nd|rd|th)?,?\s+)?"
    r"|(?P<d2>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MON.replace("mon", "mon2") + r",?\s+"
    r"|\bin\s+)" + _YEAR,
    rx.IGNORECASE,
)
_DATED_ZH = rx.compile(
    r"(?P<year>(?:19|20)\d\d)\s*年(?:\s*(?P<mon>1[0-2]|0?[1-9])\s*月"
    r"(?:\s*(?P<day>3[01]|[12]\d|0?[1-9])\s*[日号])?)?"
)


def parse_time_cue(query: str, now: datetime) -> Window | None:
    """The window a query's time cue points at, relative to `now`; None without a cue.

    In a query of several sentences where some ask (end with a question mark), only those
    are read: "Last night I dreamt of rain. Anyway, where was it?" asks about
    no time. Never raises: a window outside what datetime holds (``now`` in year 1 or
    9999) is no window."""
    try:
        return _parse_time_cue(asked_part(query), now)
    except (ValueError, OverflowError):
        return None


_SENTENCE = rx.compile(r"[^。！？!?；;\n]+[。！？!?；;]*")
_FULL_STOP = rx.compile(r"\.\s+")


def asked_part(query: str) -> str:
    """The sentences of a query that ask (end with ? or ？), or the whole query when it has
    fewer than two sentences or none of them asks."""
    text = _FULL_STOP.sub(".\n", query)  # a Latin full stop ends a sentence before a space
    sentences = [s.strip() for s in _SENTENCE.findall(text) if s.strip()]
    asked = [s for s in sentences if s.endswith(("?", "？"))]
    return " ".join(asked) if len(sentences) > 1 and asked else query


def _dated(query: str, now: datetime) -> Window | None:
    """A window for a date that names its year: that day, month or year."""
    m = _DATED_EN.search(query)
    if m:
        mon = m.group("mon") or m.group("mon2")
        day = m.group("d1") or m.group("d2")
        month = month_index(mon) if mon else None
    else:
        m = _DATED_ZH.search(query)
        if not m:
            return None
        month = int(m.group("mon")) if m.group("mon") else None
        day = m.group("day")
    year = int(m.group("year"))
    start = now.replace(year=year, month=month or 1, day=1, hour=0, minute=0, second=0)
    start = start.replace(microsecond=0)
    if month is None:
        end = start.replace(year=year + 1)
    elif day is None:
        end = (
            start.replace(year=year + 1, month=1) if month == 12 else start.replace(month=month + 1)
        )
    else:
        start = start.replace(day=int(day))
        end = start + timedelta(days=1)
    return Window(start, end, m.group(0).strip())


def _parse_time_cue(query: str, now: datetime) -> Window | None:
    dated = _dated(query, now)
    if dated is not None:
        return dated
    for pattern, back in _DAY_CUES:
        m = pattern.search(query)
        if m:
            start, end = _day(now, -back)
            return Window(start, end, m.group(0))
    for pattern, back in _WEEK_CUES:
        m = pattern.search(query)
        if m:
            start, end = _week(now, -back)
            return Window(start, end, m.group(0))
    m = _LAST_MONTH.search(query)
    if m:
        month = now.month - 1 or 12
        start, end = _recalled_month(now, month, 1 if now.month == 1 else 0)
        return Window(start, end, m.group(0))
    m = _LAST_YEAR.search(query)
    if m:
        start = now.replace(
            year=now.year - 1, month=1, day=1, hour=0, minute=0, second=0, microsecond=0
        )
        return Window(start, start.replace(year=now.year), m.group(0))
    m = _MONTH_EN.search(query)
    named = month_index(m.group(1)) if m else None
    if m and named is not None:
        start, end = _recalled_month(now, named)
        return Window(start, end, m.group(0))
    m = _MONTH_ZH.search(query)
    if m:
        raw = m.group(2)
        month = parse_cn_int(raw) or int(raw)  # "十一" or "11"
        start, end = _recalled_month(now, month)
        return Window(start, end, m.group("cue"))
    return None
