"""The context recall gives an agent: its items (`Item`, `Recall`) and the one prompt-ready
block they are formatted into, where user content can never open a section, an item or
an id of its own."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from core.wire import ItemFields
from extract.types import author_name
from graph.recall import MessageCandidate
from text.lang import detect_lang
from text.time_window import Window
from text.timecues import MONTHS_EN


@dataclass
class Item(ItemFields):
    # when it happened, as its line dates it: a Fact's event time (a resolved "yesterday"
    # is that day), a Message's time; None: undated
    period: tuple[datetime, datetime] | None = None
    source_fact_ids: list[str] = field(default_factory=list)
    source_message_ids: list[str] = field(default_factory=list)
    replaced_by: list[tuple[str, str]] = field(default_factory=list)  # (fact id, content)
    superseded: bool = False  # a raw Message carrying a value a later Fact replaced
    author: str | None = None  # a Message's author: "user", a speaker, "assistant", an event
    # a Summary's Facts that bear on the query (among its ranked evidence), best first
    relevant_fact_ids: list[str] = field(default_factory=list)


@dataclass
class Recall:
    query: str
    short_term: list[Item]
    mid_term: list[Item]
    long_term: list[Item]
    formatted: str
    window: Window | None


_AUTHORS = {
    "zh": {
        "user": "用户",
        "assistant": "助手",
        "system": "系统",
        "tool": "工具",
        "search": "搜索",
        "filter": "筛选",
        "view": "浏览",
        "click": "点击",
        "favorite": "收藏",
        "dwell": "停留",
        "skip": "跳过",
        "purchase": "购买",
        "tool_call": "工具调用",
    },
}


def author(m: MessageCandidate, user_id: str, lang: str) -> str:
    """Who a Message comes from, as its line says: the speaker's name when the metadata
    gives one, else the user, the assistant (or another role), or the event's type."""
    role = m.role or "user"
    speaker = author_name(m.metadata)
    if role == "user" and m.event_type not in (None, "message"):
        who = str(m.event_type)
    elif role == "user" and speaker and speaker != user_id:
        return inline(str(speaker)[:40]).replace(":", " ").replace("：", " ") or "?"
    else:
        who = role
    return _AUTHORS.get(lang, {}).get(who, who)


def named_author(m: MessageCandidate) -> str | None:
    """A Message's author when its metadata names them (a ranked turn's line says who)."""
    name = author_name(m.metadata)
    return inline(name).replace(":", " ").replace("：", " ") or None if name else None


_HEAD = {
    "zh": ("长期用户记忆", "与当前问题相关的记忆", "近期对话", "依据"),
    "en": (
        "Long-term user memory",
        "Memory relevant to this query",
        "Recent conversation",
        "evidence",
    ),
}


# Every Unicode line break (\n \r \v \f \x1c-\x1e \x85 \u2028 \u2029) and other control
# becomes a space; format characters (zero-width, joiners, bidi marks) are dropped.
_BREAKING = frozenset({"Cc", "Zl", "Zp"})
_HIDDEN = frozenset({"Cf"})
_SPACES = re.compile(r"\s+")
# Leading characters that make markup of a line (headings, quotes, items, rules, code, tables)
_MARKERS = frozenset("#>-*+=|`~_•·◦‣⁃")
_BRACKETS = str.maketrans({"[": "(", "]": ")", "［": "(", "］": ")", "【": "(", "】": ")"})


def _visible(ch: str) -> str:
    kind = unicodedata.category(ch)
    return " " if kind in _BREAKING else "" if kind in _HIDDEN else ch


def inline(text: str | None) -> str:
    """User content made safe to place on one line of the formatted context: no line break
    of any kind, no hidden characters, no bracketed [id] tag, no leading markup. Whatever a
    message says, it cannot open a section, an item or an id of its own."""
    if not text:
        return ""
    kept = "".join(_visible(ch) for ch in text)
    flat = _SPACES.sub(" ", kept).strip().translate(_BRACKETS)
    if flat and unicodedata.normalize("NFKC", flat[0])[:1] in _MARKERS:
        flat = "\\" + flat
    return flat


def format_context(
    query: str,
    short: list[Item],
    mid: list[Item],
    long_term: list[Item],
    lang: str | None = None,
) -> str:
    """One prompt-ready block in the query's language; every line carries its ids.

    Content is placed through `inline`, so the only headings, items and [id] tags in the
    block are the ones written here; a recent-conversation line starts with its author
    ("user:", "assistant:", a speaker's name, "click:"), so nothing said by someone else
    reads as the user's own words."""
    lang = lang or detect_lang(query)
    h_long, h_mid, h_short, h_src = _HEAD[lang]
    lines: list[str] = []
    if long_term:
        lines.append(f"## {h_long}")
        lines += [f"- [{it.id}] {inline(it.content)}" for it in long_term]
    if mid:
        lines.append(f"## {h_mid}")
        placed: set[str] = set()

        def fact_line(it: Item, indent: str) -> str:
            sources = ", ".join(it.source_message_ids)
            when = dated(it.period, lang)
            return f"{indent}- [{it.id}] {when}{inline(it.content)} ({h_src}: {sources})"

        for it in mid:
            if it.kind == "summary":
                lines.append(
                    f"- [{it.id}] ({inline(it.topic)}, confidence {it.confidence:.2f}) "
                    f"{inline(it.content)}"
                )
                for f in mid:
                    if f.kind == "fact" and f.id in it.source_fact_ids and f.id not in placed:
                        placed.add(f.id)
                        lines.append(fact_line(f, "  "))
        for it in mid:
            if it.kind == "fact" and it.id not in placed:
                lines.append(fact_line(it, ""))
            elif it.kind == "message":
                lines.append(_message_line(it, lang))
    if short:
        lines.append(f"## {h_short}")
        lines += [_message_line(it, lang) for it in short]
    return "\n".join(lines)


def day_label(t: datetime, lang: str) -> str:
    """A calendar day as a reader says it: "7 May 2023" (no numeric order to misread), or
    "2023年5月7日"."""
    if lang == "zh":
        return f"{t.year}年{t.month}月{t.day}日"
    return f"{t.day} {MONTHS_EN[t.month - 1].capitalize()} {t.year}"


def dated(period: tuple[datetime, datetime] | None, lang: str) -> str:
    """The prefix that dates a line: its day, or its first and last day when it spans
    several ("(1 May 2023 – 7 May 2023) "); "" when undated. An end at midnight is the
    end of the day before (a resolved "yesterday" is that one day)."""
    if period is None or period[0] is None:
        return ""
    start, end = period
    last = end - timedelta(microseconds=1) if end is not None and end > start else start
    first_day, last_day = day_label(start, lang), day_label(last, lang)
    label = first_day if first_day == last_day else f"{first_day} – {last_day}"
    return f"（{label}）" if lang == "zh" else f"({label}) "


def _message_line(it: Item, lang: str) -> str:
    """A raw Message, after its author when known; one whose value was corrected says so
    and names the Fact that replaced it."""
    who = f"{it.author}{'：' if lang == 'zh' else ': '}" if it.author else ""
    line = f"- [{it.id}] {dated(it.period, lang)}{who}{inline(it.content)}"
    if not it.superseded:
        return line
    if not it.replaced_by:
        return f"{line}（已过时，已被更正）" if lang == "zh" else f"{line} (outdated: superseded)"
    if lang == "zh":
        now = "；".join(f"{inline(c)}（{f}）" for f, c in it.replaced_by)
        return f"{line}（已更正为：{now}）"
    now = "; ".join(f"{f}: {inline(c)}" for f, c in it.replaced_by)
    return f"{line} (superseded by {now})"
