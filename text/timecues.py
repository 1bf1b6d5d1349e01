"""Time cues: day, week and month words, the span a message's cue names (stored with its
Fact), and relative days in a Fact resolved to the date they name. The window a recall
query's cue points at ("昨天", "上周", "yesterday", "in March") is in time_window.py, on
the same words and ranges."""

from __future__ import annotations

from datetime import datetime, timedelta

from text import rx
from text.lang import fold, parse_number

# --- day, week and month words and ranges ----------------------------------------------------
#
# One interval convention: a range is half-open, [start, end) — a day runs from its midnight
# to the next. A Fact's stored span is closed instead (its end is the last instant it covers,
# which the recall queries compare with <=): time_range() converts, in one place (_closed).

WEEKDAYS_EN = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
WEEKDAYS_ZH = "一二三四五六日"
MONTHS_EN = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)


Span = tuple[datetime, datetime]


def _day(ts: datetime, offset: int) -> Span:
    """The day `offset` days from `ts`'s day (0: that day), [midnight, next midnight)."""
    start = (ts + timedelta(days=offset)).replace(hour=0, minute=0, second=0, microsecond=0)
    return start, start + timedelta(days=1)


def _week(ts: datetime, offset: int) -> Span:
    """The Monday-to-Monday week `offset` weeks from `ts`'s week."""
    start, _ = _day(ts, -ts.weekday() + 7 * offset)
    return start, start + timedelta(days=7)


def _month(ts: datetime, year: int, month: int) -> Span:
    """One month; a month past 12 or below 1 rolls the year."""
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    start = ts.replace(year=year, month=month, day=1, hour=0, minute=0, second=0, microsecond=0)
    return start, start.replace(year=year + month // 12, month=month % 12 + 1)


def _year(ts: datetime, year: int) -> Span:
    start = ts.replace(year=year, month=1, day=1, hour=0, minute=0, second=0, microsecond=0)
    return start, start.replace(year=year + 1)


def _closed(span: Span) -> Span:
    """[start, end) as the closed span a Fact stores: [start, end - 1 µs]."""
    return span[0], span[1] - timedelta(microseconds=1)


_WEEKDAY_INDEX = {fold(w): i for i, w in enumerate(WEEKDAYS_EN)} | {
    d: i for i, d in enumerate(WEEKDAYS_ZH)
}
_WEEKDAY_INDEX["天"] = 6
_MONTH_INDEX = {fold(m): i for i, m in enumerate(MONTHS_EN, start=1)}


def weekday_index(word: str) -> int | None:
    """0 for Monday ... 6 for Sunday, from an English or Chinese weekday word."""
    return _WEEKDAY_INDEX.get(fold(word))


def month_index(word: str) -> int | None:
    """1 to 12 from an English month name ("ſeptember" too) or a number; None otherwise."""
    if word.isdigit() and len(word) <= 2:
        month = int(word)
        return month if 1 <= month <= 12 else None
    return _MONTH_INDEX.get(fold(word))


_WD_ZH = r"(?:周|星期|礼拜)([一二三四五六日天])"
_WD_EN = r"(" + "|".join(WEEKDAYS_EN) + r")"
_MON_EN = r"(" + "|".join(MONTHS_EN) + r")"
# Relative cues, most specific first. Each maps (match, ts) to a (start, end) range.
TIME_CUES: tuple[tuple[rx.Pattern, str], ...] = tuple(
    (rx.compile(p, rx.IGNORECASE), name)
    for p, name in (
        (r"前天|the day before yesterday", "day:-2"),
        (r"后天|the day after tomorrow", "day:2"),
        (r"昨天|昨晚|昨日|yesterday|last night", "day:-1"),
        (r"明天|明早|明晚|tomorrow", "day:1"),
        (r"今天|今晚|今早|\btoday\b|\btonight\b|this morning|this evening", "day:0"),
        (r"上周" + r"([一二三四五六日天])|上星期([一二三四五六日天])|last " + _WD_EN, "lastwd"),
        (r"下周" + r"([一二三四五六日天])|下星期([一二三四五六日天])|next " + _WD_EN, "nextwd"),
        (r"上周|上星期|上个星期|上礼拜|last week|a week ago", "week:-1"),
        (r"这周|本周|这个星期|this week", "week:0"),
        (r"下周|下星期|下个星期|next week", "week:1"),
        (r"上个月|上月|last month|a month ago", "month:-1"),
        (r"下个月|下月|next month", "month:1"),
        (r"去年|last year|a year ago", "year:-1"),
        (r"明年|next year", "year:1"),
        (r"(\d+|[一二两三四五六七八九十]+)\s*天前|(\d+|a few|two|three) days ago", "daysago"),
        (r"(\d{4})\s*年\s*(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]", "ymd"),
        (r"(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]", "md"),
        (
            _MON_EN
            + r"\s+(\d{1,2})(?:st|nd|rd|th)?\b|\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?"
            + _MON_EN,
            "md_en",
        ),
        # "(?:\D|$)" stands for "not before a digit" (only the groups are used)
        (r"(\d{1,2})\s*月份?(?:\D|$)|\bin\s+" + _MON_EN, "month_named"),
    )
)
_WORD_NUMS = {"a few": 3, "two": 2, "three": 3}
_NEXT = "next"  # this cue gives no range: try the next one


def time_range(text: str, ts: datetime, future: bool = False) -> Span | None:
    """Resolve the first time cue in a message against its time: the closed span a Fact
    stores (its end is the last microsecond covered); None if there is no cue.

    future=True (plans) resolves bare months/dates forward, otherwise backward. Never
    raises: a cue whose range falls outside what datetime holds (a message time in year 1
    or 9999, "99999 days ago") gives no range.
    """
    for pattern, name in TIME_CUES:
        m = pattern.search(text)
        if not m:
            continue
        try:
            span = _cue_range(name, m, ts, future)
            if span != _NEXT:
                return _closed(span) if isinstance(span, tuple) else None
        except (ValueError, OverflowError):
            return None
    return None


def _cue_range(name: str, m: rx.Match, ts: datetime, future: bool) -> Span | str | None:
    groups = [g for g in m.groups() if g]
    kind, _, arg = name.partition(":")
    if kind == "day":
        return _day(ts, int(arg))
    if kind == "week":
        return _week(ts, int(arg))
    if kind == "month":
        return _month(ts, ts.year, ts.month + int(arg))
    if kind == "year":
        return _year(ts, ts.year + int(arg))
    if kind in ("lastwd", "nextwd"):
        wd = weekday_index(groups[0])
        if wd is None:
            return None
        if kind == "nextwd":
            return _day(ts, -ts.weekday() + 7 + wd)
        if m.group(0).startswith("上"):
            return _day(ts, -ts.weekday() - 7 + wd)
        back = (ts.weekday() - wd) % 7 or 7
        return _day(ts, -back)
    if kind == "daysago":
        g = fold(groups[0])
        n = _WORD_NUMS.get(g) or parse_number(g) or 1
        return _day(ts, -int(n))
    if kind in ("ymd", "md", "md_en"):
        return _resolve_date(name, groups, ts, future)
    # month_named
    month = month_index(groups[0])
    if month is None:
        return _NEXT
    year = ts.year
    if not future and month > ts.month:
        year -= 1
    if future and month < ts.month:
        year += 1
    return _month(ts, year, month)


def _resolve_date(name: str, groups: list[str], ts: datetime, future: bool) -> Span | None:
    if name == "ymd":
        year, month, day = int(groups[0]), int(groups[1]), int(groups[2])
    elif name == "md":
        year, month, day = ts.year, int(groups[0]), int(groups[1])
    else:
        a, b = groups
        mon, d = (a, b) if month_index(a) is not None and not a.isdigit() else (b, a)
        found = month_index(mon)
        if found is None or not d.isdigit():
            return None
        year, month, day = ts.year, found, int(d)
    try:
        start = ts.replace(
            year=year, month=month, day=day, hour=0, minute=0, second=0, microsecond=0
        )
    except ValueError:
        return None
    if name != "ymd":
        if not future and start > ts:
            start = start.replace(year=year - 1)
        elif future and start + timedelta(days=1) < ts:
            start = start.replace(year=year + 1)
    return start, start + timedelta(days=1)


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
