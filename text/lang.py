"""Language helpers with no spaCy: detection, numbers, money/size values.

Time cues are in timecues.py."""

from __future__ import annotations

import math
import unicodedata
from typing import Literal

from text import rx

Lang = Literal["en", "zh"]

_CJK_RUN = rx.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_LATIN_RUN = rx.compile(r"[A-Za-z]+")
# a token that names something rather than saying it: an e-mail, a URL, a handle or a
# model number (letters with digits, "_", "@", "/" or inner dots); its letters are no
# language ("我的邮箱是 li.wei2001@example.com" is Chinese)
_IDENTIFIER = rx.compile(
    r"\S*(?:@|://|_)\S*|[A-Za-z]+\d[\w.-]*|\d+[A-Za-z][\w.-]*|[A-Za-z]+(?:\.[A-Za-z0-9]+){2,}"
)


def _chars(run: rx.Pattern, text: str) -> int:
    return sum(m.end() - m.start() for m in run.finditer(text))


def fold(text: str) -> str:
    """The key a word is looked up by: NFKC, then case folding ("ſun" -> "sun").

    Tables keyed by words store folded keys, and every lookup folds what it looks up, so a
    case-insensitive regex hit always finds its row (``str.lower`` misses "ſ", "K", "İ")."""
    return unicodedata.normalize("NFKC", text).casefold()


# the grammar of a sentence: its function words. A Chinese frame around English names
# ("我刚买了 Apple Watch 和 AirPods Pro") is Chinese; an English one around a dish is English.
_ZH_FUNCTION = rx.compile(
    r"[我你他她它的了是在把被吗呢吧啊和也都就很没不要想有这那们着过给跟让请帮]|一下"
)
_EN_FUNCTION = rx.compile(
    r"\b(?:i|me|my|we|our|you|your|he|she|it|they|the|a|an|is|are|was|were|am|be|to|of|in|"
    r"on|at|for|with|and|or|but|not|this|that|do|does|did|have|has|had|will|would|can|could)\b",
    rx.IGNORECASE,
)


def detect_lang(text: str, default: Lang = "en") -> Lang:
    """The language of the sentence's grammar: "zh" when only Chinese function words frame
    it, "en" when only English ones do; else "zh" when CJK characters dominate (two Latin
    letters weigh as much as one CJK char; ids, e-mails and model numbers do not count)."""
    cjk = _chars(_CJK_RUN, text)
    latin = _chars(_LATIN_RUN, _IDENTIFIER.sub(" ", text))
    if cjk == 0 and latin == 0:
        return default
    if cjk and latin:
        zh, en = bool(_ZH_FUNCTION.search(text)), bool(_EN_FUNCTION.search(text))
        if zh != en:
            return "zh" if zh else "en"
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
