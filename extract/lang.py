"""Language helpers with no spaCy: detection, numbers, money/size values, time cues, teams."""

from __future__ import annotations

import math
import unicodedata
from datetime import datetime, timedelta

from extract import rx
from extract.types import Lang

_CJK_RUN = rx.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_LATIN_RUN = rx.compile(r"[A-Za-z]+")


def _chars(run: rx.Pattern, text: str) -> int:
    return sum(m.end() - m.start() for m in run.finditer(text))


def fold(text: str) -> str:
    """The key a word is looked up by: NFKC, then case folding ("ſun" -> "sun").

    Tables keyed by words store folded keys, and every lookup folds what it looks up, so a
    case-insensitive regex hit always finds its row (``str.lower`` misses "ſ", "K", "İ")."""
    return unicodedata.normalize("NFKC", text).casefold()


def detect_lang(text: str, default: Lang = "en") -> Lang:
    """ "zh" when CJK characters dominate (two Latin letters weigh as much as one CJK char)."""
    cjk = _chars(_CJK_RUN, text)
    latin = _chars(_LATIN_RUN, text)
    if cjk == 0 and latin == 0:
        return default
    return "zh" if cjk >= latin / 2 else "en"


# --- numbers -------------------------------------------------------------------------------

CN_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
CN_UNITS = {"十": 10, "百": 100, "千": 1000}
CN_BIG = {"万": 10_000, "亿": 100_000_000}
CN_NUM_CHARS = "零〇一二两三四五六七八九十百千万亿"
# a number as written in chat: 1200, 1,200, 1.5k, 3千, 1.5万, 八百, 三千五 ("5 kg" is no 5k:
# RE2's ASCII \b after the k). Chinese numerals are bounded: with "[...]*" each match in a
# long run of numeral characters would look to the end of the run for a unit (quadratic).
NUM_PATTERN = (
    r"(?:\d+(?:,\d{3})*(?:\.\d+)?(?:\s?(?:[kK]\b|千|万))?"
    rf"|[{CN_NUM_CHARS}]{{0,12}}[十百千万亿][{CN_NUM_CHARS}]{{0,12}}|[一二两三四五六七八九])"
)
NUM_RE = rx.compile(NUM_PATTERN)
# Larger numbers mean nothing as a price, size or count: they stay text (never inf).
MAX_NUMBER = 1e15
_MAX_DIGITS = 16
_ARABIC = rx.compile(r"(\d+(?:\.\d+)?)([kK千万]?)")
_MULTIPLIER = {"": 1, "k": 1000, "K": 1000, "千": 1000, "万": 10_000}


def parse_cn_int(text: str) -> int | None:
    """Chinese numeral to int: 八百 -> 800, 一百零五 -> 105, 三千五 -> 3500, 两万 -> 20000."""
    if not text or any(ch not in CN_NUM_CHARS for ch in text):
        return None
    total, section, digit, last_unit = 0, 0, -1, 1
    for ch in text:
        if ch in "零〇":
            digit, last_unit = 0, 10  # 一百零五: the next digit is a unit digit
        elif ch in CN_DIGITS:
            digit = CN_DIGITS[ch]
        elif ch in CN_UNITS:
            unit = CN_UNITS[ch]
            section += (1 if digit < 0 else digit) * unit
            digit, last_unit = -1, unit
        else:  # 万 / 亿
            section += max(digit, 0)
            total += (section or 1) * CN_BIG[ch]
            section, digit, last_unit = 0, -1, CN_BIG[ch]
    if digit >= 0:  # trailing digit: 三千五 means 3500, 八 means 8
        section += digit * (last_unit // 10 if last_unit >= 10 and len(text) > 1 else 1)
    return total + section


def parse_number(text: str) -> float | None:
    """Arabic or Chinese number with optional k/千/万 multiplier; None past ``MAX_NUMBER``."""
    raw = text.strip().replace(",", "").replace(" ", "")
    m = _ARABIC.fullmatch(raw)
    if m:
        if len(m.group(1).split(".")[0].lstrip("0")) > _MAX_DIGITS:
            return None
        value = float(m.group(1)) * _MULTIPLIER.get(m.group(2), 1)
    else:
        cn = parse_cn_int(raw) if len(raw) <= 4 * _MAX_DIGITS else None
        if cn is None or cn > MAX_NUMBER:
            return None
        value = float(cn)
    return value if math.isfinite(value) and value <= MAX_NUMBER else None


def fmt_number(value: float) -> str:
    if not math.isfinite(value):
        return str(value)
    return str(int(value)) if value == int(value) else f"{value:g}"


# --- money and sizes -----------------------------------------------------------------------

RANGE_SEP = r"\s*(?:-|–|—|~|～|到|至|to|and)\s*"
UPPER_WORDS = (
    r"以内|以下|之内|内|不超过|不超|最多|最高|低于|少于|不到|不高于|封顶|under|below|"
    r"less than|up to|at most|no more than|not more than|max(?:imum)?|within|"
    r"cheaper than|or less|or under|tops"
)
LOWER_WORDS = r"以上|至少|不低于|高于|超过|起|over|above|more than|at least|or more|min(?:imum)?"
APPROX_WORDS = r"左右|上下|大概|大约|约|around|about|approximately|roughly|~"


_BETWEEN = rx.compile(r"[\s$€£¥￥元块]*" + RANGE_SEP + r"[\s$€£¥￥]*")
_UPPER = rx.compile(UPPER_WORDS)
_LOWER = rx.compile(LOWER_WORDS)
_APPROX = rx.compile(APPROX_WORDS)
_SIZE_NUM = rx.compile(r"\d+(?:\.\d+)?")
_SIZE_LETTERS = rx.compile(r"\b(XXS|XS|S|M|L|XL|XXL|XXXL)\b", rx.IGNORECASE)


def money_value(text: str) -> str | None:
    """Normalise a price: "800 以内" -> "<=800", "500-800 元" -> "500-800", "八百元" -> "800"."""
    nums = [(m, parse_number(m.group(0))) for m in NUM_RE.finditer(text)]
    vals = [(m, v) for m, v in nums if v is not None]
    if not vals:
        return None
    low = text.lower()
    if len(vals) >= 2:
        between = low[vals[0][0].end() : vals[1][0].start()]
        if _BETWEEN.fullmatch(between):
            return f"{fmt_number(vals[0][1])}-{fmt_number(vals[1][1])}"
    num = fmt_number(vals[0][1])
    if _UPPER.search(low):
        return f"<={num}"
    if _LOWER.search(low):
        return f">={num}"
    if _APPROX.search(low):
        return f"~{num}"
    return num


def size_value(text: str) -> str | None:
    """ "42 码" / "size 42" / "尺码 43" / "M 码" -> "42" / "43" / "M"."""
    m = _SIZE_NUM.search(text)
    if m:
        return str(m.group(0))
    m = _SIZE_LETTERS.search(text)
    return str(m.group(1)).upper() if m else None


# --- time cues -----------------------------------------------------------------------------

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


def _day(ts: datetime, offset: int) -> tuple[datetime, datetime]:
    start = (ts + timedelta(days=offset)).replace(hour=0, minute=0, second=0, microsecond=0)
    return start, start + timedelta(days=1) - timedelta(microseconds=1)


def _week(ts: datetime, offset: int) -> tuple[datetime, datetime]:
    start, _ = _day(ts, -ts.weekday() + 7 * offset)
    return start, start + timedelta(days=7) - timedelta(microseconds=1)


def _month(ts: datetime, year: int, month: int) -> tuple[datetime, datetime]:
    year, month = year + (month - 1) // 12, (month - 1) % 12 + 1
    start = ts.replace(year=year, month=month, day=1, hour=0, minute=0, second=0, microsecond=0)
    nxt = start.replace(year=year + month // 12, month=month % 12 + 1)
    return start, nxt - timedelta(microseconds=1)


def _year(ts: datetime, year: int) -> tuple[datetime, datetime]:
    start = ts.replace(year=year, month=1, day=1, hour=0, minute=0, second=0, microsecond=0)
    return start, start.replace(year=year + 1) - timedelta(microseconds=1)


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
Span = tuple[datetime, datetime]


def time_range(text: str, ts: datetime, future: bool = False) -> Span | None:
    """Resolve the first time cue in text against the message time; None if there is none.

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
        except (ValueError, OverflowError):
            return None
        if span != _NEXT:
            return span if isinstance(span, tuple) else None
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
    return start, start + timedelta(days=1) - timedelta(microseconds=1)


# --- teams ---------------------------------------------------------------------------------

_TEAM_ARTICLE = rx.compile(r"^(?:the|our|my)\s+")
_TEAM_SUFFIX = rx.compile(r"(?:团队|组|部门|\s*team)$")
_NON_WORD = rx.compile(r"[^\w]+")


def team_slug(team: str) -> str:
    """ "设计团队" / "the design team" -> "设计_team" / "design_team"; region words map through the
    packs' team_regions, so one region named in two languages gives one slot."""
    from extract.packs import current  # extract.packs imports this module

    key = _TEAM_ARTICLE.sub("", fold(team.strip()))
    key = _TEAM_SUFFIX.sub("", key).strip()
    slug = current().folded_regions.get(key) or _NON_WORD.sub("_", key).strip("_")
    return f"{slug}_team"
