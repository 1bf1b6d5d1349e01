"""Time cues in a recall query ("昨天", "上周", "yesterday", "in March") → a time window."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from extract import rx
from extract.lang import MONTHS_EN, WEEKDAYS_EN, month_index, weekday_index

_ZH_DIGITS = {
    "一": 1,
    "二": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
    "十": 10,
    "十一": 11,
    "十二": 12,
}


@dataclass(frozen=True)
class Window:
    start: datetime
    end: datetime
    cue: str


def _day(now: datetime, back: int) -> tuple[datetime, datetime]:
    start = now.replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=back)
    return start, start + timedelta(days=1)


def _week(now: datetime, back: int) -> tuple[datetime, datetime]:
    monday = now.replace(hour=0, minute=0, second=0, microsecond=0) - timedelta(days=now.weekday())
    start = monday - timedelta(weeks=back)
    return start, start + timedelta(weeks=1)


def _month(now: datetime, month: int, back_years: int = 0) -> tuple[datetime, datetime]:
    year = now.year - back_years
    if month > now.month and back_years == 0:
        year -= 1  # "in March" said in January means last March
    start = now.replace(year=year, month=month, day=1, hour=0, minute=0, second=0, microsecond=0)
    end = start.replace(year=year + 1, month=1) if month == 12 else start.replace(month=month + 1)
    return start, end


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

    Never raises: a window outside what datetime holds (``now`` in year 1 or 9999) is no
    window."""
    try:
        return _parse_time_cue(query, now)
    except (ValueError, OverflowError):
        return None


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
            start, end = _day(now, back)
            return Window(start, end, m.group(0))
    for pattern, back in _WEEK_CUES:
        m = pattern.search(query)
        if m:
            start, end = _week(now, back)
            return Window(start, end, m.group(0))
    m = _LAST_MONTH.search(query)
    if m:
        month = now.month - 1 or 12
        start, end = _month(now, month, 1 if now.month == 1 else 0)
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
        start, end = _month(now, named)
        return Window(start, end, m.group(0))
    m = _MONTH_ZH.search(query)
    if m:
        raw = m.group(2)
        month = _ZH_DIGITS.get(raw) or int(raw)
        start, end = _month(now, month)
        return Window(start, end, m.group("cue"))
    return None


# --- relative days in a fact: resolved to the date they name ------------------------------

_REL_DAY = rx.compile(
    r"(?P<cue>大前天|前天|昨天|昨晚|昨日|(?i:the day before yesterday|yesterday|last night))"
)
_WD_ZH = r"(?:星期|礼拜|周)(?P<zd>[一二三四五六日天])"
_REL_WEEKDAY = rx.compile(
    r"(?P<cue>(?P<zl>上个?)" + _WD_ZH + r"|(?i:last\s+(?P<ed>" + "|".join(WEEKDAYS_EN) + r")))"
)
_DAY_BACK = {"大前天": 3, "前天": 2, "the day before yesterday": 2}


def resolve_relative_days(text: str, now: datetime, zh: bool) -> str:
    """``text`` with "yesterday" / "昨天" / "last Friday" / 上周 + a weekday followed by the
    date they name from ``now`` (the message time), so a stored fact stays true later. One
    cue at most."""
    found: tuple[int, datetime] | None = None
    m = _REL_DAY.search(text)
    if m:
        cue = m.group("cue")
        back = _DAY_BACK.get(cue.lower(), 1)
        found = (m.end("cue"), now - timedelta(days=back))
    else:
        m = _REL_WEEKDAY.search(text)
        if m:
            wd = weekday_index(m.group("ed") or m.group("zd")) if m else None
            if wd is not None:
                if m.group("ed"):  # "last Friday": the latest one before today
                    back = (now.weekday() - wd) % 7 or 7
                    day = now - timedelta(days=back)
                else:  # 上周二: that day of the previous calendar week
                    day = now - timedelta(days=now.weekday() + 7 - wd)
                found = (m.end("cue"), day)
    if found is None:
        return text
    end, day = found
    label = f"（{day.month}月{day.day}日）" if zh else f" ({day.date().isoformat()})"
    return text[:end] + label + text[end:]
