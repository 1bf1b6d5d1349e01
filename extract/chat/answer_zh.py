"""An answer worded in Chinese (answers.py): the question's frame with the wh-word filled
by the answer's value or, for a yes/no question, its positive as the user's statement."""

from __future__ import annotations

from extract.chat.answer_words import (
    _ALT_ZH,
    _ASK_LEAD_ZH,
    _CLAUSE,
    _FOR_YOU_ZH,
    _OFFER_ZH,
    _PUNCT,
    _SELF_ZH,
    _TAG_ZH,
    _WH_ZH,
    _YOU_ZH,
    _ZH_NUMERALS,
    USER_ZH,
)
from text.zh_words import cut_zh


def _bounds(text: str) -> set[int]:
    """Character offsets between the words of `text` (jieba)."""
    out, at = {0}, 0
    for w, _f in cut_zh(text):
        at += len(w)
        out.add(at)
    return out


def _merge(a: str, b: str, counted: bool = False) -> str:
    """a + b without the words both say where they meet ("安静的" + "的房间" -> "安静的房间");
    after a number question (`counted`: 几, 多少) the measure word ("三个" + "个人")."""
    if counted and b and any(c.isdigit() or c in _ZH_NUMERALS for c in a[:1]):
        if a[-1:] not in _ZH_NUMERALS and not a[-1:].isdigit():
            b = b[1:]  # "几口人" + "四口人": the value brings its own measure word
        for k in range(min(len(a), len(b)), 0, -1):
            if a.endswith(b[:k]):
                return a + b[k:]
        return a + b
    ends, starts = _bounds(a), _bounds(b)
    for k in range(min(len(a), len(b), 6), 0, -1):
        if a.endswith(b[:k]) and len(a) - k in ends and k in starts:
            return a + b[k:]
    return a + b


def _frame_zh(question: str) -> str:
    """The question clause that asks, without its tail particle, lead words and the
    assistant's "我帮您", the addressee named as the user."""
    body = _PUNCT.sub("", question)
    clauses = [c for c in _CLAUSE.split(body) if c.strip()]
    asking = [c for c in clauses if _WH_ZH.search(c) or _ALT_ZH in c]
    body = (asking or clauses or [body])[-1]
    body = _TAG_ZH.sub("", _ASK_LEAD_ZH.sub("", body.strip()))
    body = _SELF_ZH.sub("", _FOR_YOU_ZH.sub("", body))
    return _a_not_a(body)


def _a_not_a(text: str) -> str:
    """ "要不要" -> "要", "需不需要" -> "需要", "有没有" -> "有": the positive of an A-not-A
    question."""
    out = text
    for neg in ("不", "没"):
        i = out.find(neg, 1)
        while 0 < i < len(out) - 1:
            if out[i - 1] == out[i + 1]:
                out = out[: i - 1] + out[i + 1 :]
                break
            i = out.find(neg, i + 1)
    return out.replace("是否", "")


def _as_user_zh(frame: str, adverb: str = "") -> str:
    """The frame as the user's statement: the addressee is the user; without one, the user
    is its subject (a noun frame is the user's: "用户的…")."""
    if _YOU_ZH.search(frame):
        head = _YOU_ZH.search(frame)
        assert head is not None
        rest = _YOU_ZH.sub(USER_ZH, frame[head.end() :])
        return frame[: head.start()] + USER_ZH + adverb + rest
    words = cut_zh(frame)
    noun = bool(words) and words[0][1][:1] in ("n", "r") and words[0][1] != "nr"
    return USER_ZH + adverb + ("的" if noun and not adverb else "") + frame


def _wh_zh(question: str, value: str) -> str | None:
    if _OFFER_ZH.search(question):
        return None
    frame = _frame_zh(question)
    m = _WH_ZH.search(frame)
    if m is None:
        return None
    head = frame[: m.start()]
    tail = frame[m.end() :]
    counted = m.group(0) in ("几", "多少")
    if m.group(0) in ("哪个", "哪家", "哪种", "什么") and tail:
        tail = _named_kind_zh(value, tail)
    for k in range(min(len(head), len(value), 6), 1, -1):
        if head.endswith(value[:k]):  # "离地铁站多远" + "离地铁站十分钟"
            value = value[k:]
            break
    return _as_user_zh(head + _merge(value, tail, counted))


def _named_kind_zh(value: str, tail: str) -> str:
    """ "哪个幼儿园" + "阳光幼儿园": the name says its kind (a shared morpheme), so the kind
    noun after the wh-word goes; else it stays ("秋天" + "季节")."""
    words = cut_zh(tail)
    if not words or words[0][1][:1] != "n":
        return tail
    last = cut_zh(value)[-1][0] if value else ""
    return tail[len(words[0][0]) :] if set(words[0][0]) & set(last) else tail


def _yes_no_zh(question: str, adverb: str) -> str | None:
    frame = _frame_zh(question)
    if not frame or _WH_ZH.search(frame):
        return None
    return _as_user_zh(frame, adverb)


def _adverbs_zh(rest: str) -> str:
    """Time and frequency adverbs the answer adds to its yes ("以后都", "每次")."""
    return "".join(
        w for w, f in cut_zh(rest) if f[:1] in ("d", "t", "f") or w.startswith("每") or w == "都"
    )
