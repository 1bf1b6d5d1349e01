"""No text and no time can make extraction raise (issue 15, classes 2 and 7, text side).

Property-based: chat turns, behaviour events and recall time cues over arbitrary Unicode,
with huge numbers, characters whose case folding differs from ``str.lower`` ("ſ", "ı", "İ",
the Kelvin sign), control characters, and message times from year 1 to year 9999 with any
UTC offset. Plus the named cases that used to fail.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta, timezone

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from spacy.language import Language

from extract.chat.clause import team_slug
from extract.chat.facts import extract_chat, extract_chats
from extract.events.behaviour import extract_events
from extract.nlp import gazetteer_lookup
from extract.types import EVENT_TYPES, MessageRecord
from text.lang import (
    MAX_NUMBER,
    fmt_number,
    fold,
    money_value,
    parse_number,
)
from text.time_window import parse_time_cue
from text.timecues import time_range

ODD = ["ſ", "ı", "İ", "\u212a", "ß", "ﬁ", "\u0345", "Ω", "\u3000", "\x00", "\x1b", "\u200b"]
WORDS = [
    "in september",
    "ſeptember",
    "ſhanghai",
    "İstanbul",
    "beıjing",
    "\u212ayoto",
    "budget is",
    "under $",
    "预算",
    "元",
    "块",
    "万",
    "k",
    "天前",
    "days ago",
    "年",
    "月",
    "日",
    "号",
    "码",
    "size",
    "EU",
    "last ſunday",
    "上周",
    "0001年1月1日",
    "9999年12月31日",
    "99999年",
    "2月29日",
    "order #",
    "I live in",
    "我住在",
    "我是",
    "the Europe team defaults to",
    "ſoft feel",
    "缓震",
]
HUGE = st.integers(min_value=0, max_value=10**500).map(str) | st.sampled_from(
    ["9" * 400, "1" + "0" * 320 + ".5", "1e400", "１２３４５６７８９０" * 40, "٣" * 50]
)
TEXT = st.lists(
    st.text(max_size=12) | st.sampled_from(ODD) | st.sampled_from(WORDS) | HUGE,
    max_size=12,
).map(" ".join)
OFFSETS = st.integers(min_value=-23 * 60 - 59, max_value=23 * 60 + 59).map(
    lambda m: timezone(timedelta(minutes=m))
)
NOW = st.builds(
    lambda d, tz: d.replace(tzinfo=tz),
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59)),
    OFFSETS,
)
EDGE_NOWS = [
    datetime(1, 1, 1, tzinfo=UTC),
    datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=23, minutes=59))),
    datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
    datetime(9999, 12, 31, 23, 59, tzinfo=timezone(timedelta(hours=-23, minutes=-59))),
    datetime(2024, 2, 29, tzinfo=UTC),
]
SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _msg(text: str, ts: datetime, role: str = "user", event_type: str = "message") -> MessageRecord:
    return MessageRecord(
        message_id="m1",
        user_id="u1",
        session_id="s1",
        role=role,
        content=text,
        timestamp=ts,
        event_type=event_type,
        metadata={"speaker": "A\\d"} if "\\" in text else {},
    )


@SETTINGS
@given(text=TEXT, now=NOW, lang=st.sampled_from(["en", "zh"]))
def test_chat_turns_never_raise(
    text: str, now: datetime, lang: str, en_nlp: Language, zh_nlp: Language
) -> None:
    msg = _msg(text, now)
    msg = MessageRecord(**{**msg.__dict__, "lang": lang})
    out = extract_chats([msg], en_nlp, zh_nlp)
    assert len(out) == 1
    for fact in out[0].facts:
        assert fact.time_start <= fact.time_end
        assert "inf" not in fact.content.split() and "nan" not in fact.content.split()


@SETTINGS
@given(texts=st.lists(TEXT, min_size=1, max_size=4), now=NOW, data=st.data())
def test_behaviour_events_never_raise(
    texts: list[str], now: datetime, data: st.DataObject, en_nlp: Language, zh_nlp: Language
) -> None:
    events = [
        _msg(t, now, role="event", event_type=data.draw(st.sampled_from(EVENT_TYPES)))
        for t in texts
    ]
    extract_events(events, en_nlp, zh_nlp, min_repeat=1)


@settings(max_examples=300, deadline=None)
@given(text=TEXT, now=NOW, future=st.booleans())
def test_time_cues_never_raise(text: str, now: datetime, future: bool) -> None:
    span = time_range(text, now, future=future)
    if span is not None:
        assert span[0] <= span[1]
    window = parse_time_cue(text, now)
    if window is not None:
        assert window.start <= window.end


@settings(max_examples=300, deadline=None)
@given(text=TEXT)
def test_numbers_and_lookups_never_raise(text: str) -> None:
    value = money_value(text)
    assert value is None or ("inf" not in value and "nan" not in value)
    for word in text.split():
        number = parse_number(word)
        assert number is None or (math.isfinite(number) and 0 <= number <= MAX_NUMBER)
        if number is not None:
            fmt_number(number)
        gazetteer_lookup(word)
    team_slug(text)


def test_named_cases_that_used_to_fail(en_nlp: Language, zh_nlp: Language) -> None:
    now = datetime(2024, 5, 1, 12, tzinfo=UTC)
    # a 400-digit number: inf, then int(inf) raised in formatting
    assert parse_number("9" * 400) is None
    assert money_value("budget " + "9" * 400 + " dollars") is None
    extract_chat(_msg("My budget is $" + "9" * 400, now), en_nlp, zh_nlp)
    extract_chat(_msg("预算" + "9" * 400 + "元", now), en_nlp, zh_nlp)
    # case folding: a case-insensitive hit whose lower() is no table key raised KeyError
    assert gazetteer_lookup("ſhanghai") == ("GPE", "Shanghai")
    assert fold("ſeptember") == "september"
    extract_chat(_msg("I moved to ſhanghai in ſeptember", now), en_nlp, zh_nlp)
    extract_chat(_msg("I love ſoft feel shoes from \u212ayoto", now), en_nlp, zh_nlp)
    extract_events(
        [_msg("viewed ſoft feel shoes", now, role="event", event_type="view")] * 2,
        en_nlp,
        zh_nlp,
    )
    # "in ſeptember" is a month cue like "in september"
    assert time_range("in ſeptember", now) == time_range("in september", now)
    window = parse_time_cue("what did I do in ſeptember", now)
    assert window is not None and window.start.month == 9
    # odd times: a message in year 1 or 9999, dates that do not exist, "99999 days ago"
    for edge in EDGE_NOWS:
        for cue in ("yesterday", "tomorrow", "next year", "last week", "2月29日", "99999天前"):
            time_range(cue, edge)
            time_range(cue, edge, future=True)
            parse_time_cue(cue, edge)
        extract_chat(_msg("Tomorrow I fly to Paris, next year to Tokyo", edge), en_nlp, zh_nlp)
    # a replacement text with a backslash (a speaker name) is literal
    msg = MessageRecord(
        **{**_msg("我们明天去北京", now).__dict__, "metadata": {"speaker": "A\\d", "self": True}}
    )
    facts = extract_chat(msg, en_nlp, zh_nlp).facts
    assert any("A\\d" in f.content for f in facts)
