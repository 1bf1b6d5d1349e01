"""What a partial change carries over from the Fact it changes: an English change to one
part that keeps the rest ("same time, but at the Oak Avenue salon instead"; the Chinese
side is extract/chat/zh_grammar.carry_over), and an updated quantity inside a Fact of several
attributes ("3 bedrooms, budget 5k a month" + "budget is now 6k"). Each gives the older
Fact's content with the changed part put in. Only grammar here: keep phrases,
prepositions, determiners, number shapes."""

from __future__ import annotations

from itertools import pairwise

from corrections.values import values
from text import rx
from text.lang import (
    APPROX_WORDS,
    LOWER_WORDS,
    NUM_RE,
    UPPER_WORDS,
    money_value,
    parse_number,
)
from text.zh_words import cut_zh

# the rest stays: "same time", "keep the day", "everything else stays", "otherwise unchanged"
KEEP_EN = rx.compile(
    r"\b(?:same\s+\w+|keep(?:ing)?\s+(?:the|my|our)\s+\w+|(?:everything|all)\s+else|"
    r"the\s+rest|otherwise|still\s+(?:the\s+)?same|(?:stays?|remains?)\s+(?:the\s+)?same|"
    r"unchanged)\b",
    rx.IGNORECASE,
)
_PREPS = frozenset(("at", "in", "on", "to", "for", "with", "from", "by", "via", "into"))
_PLACE_PREPS = frozenset(("at", "in", "to", "into"))
# when a change starts ("from next week", "starting in May"): no part of what changed
_SINCE = rx.compile(r"\b(?:from|starting(?:\s+(?:from|in|on))?)\s+[\w' -]+$", rx.IGNORECASE)
# what ends a framed value: another frame, a conjunction, a change adverb
_STOPS = _PREPS | {"and", "but", "instead", "too", "as", "then", "please"}
_WORD = rx.compile(r"[\w'&:-]+(?:\.\w+)*")
_MAX_WORDS = 6
_CJK = rx.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_DET = rx.compile(r"^(?:the|a|an|my|our|their|his|her)\s+", rx.IGNORECASE)
_TRAIL = " .,;!?"


def _framed(text: str) -> list[tuple[str, str, int, int]]:
    """(preposition, value, start, end) of every framed value in ``text``: the words after
    a preposition, up to the next preposition, conjunction or punctuation."""
    words = list(_WORD.finditer(text))
    out = []
    for i, m in enumerate(words):
        if m.group(0).lower() not in _PREPS:
            continue
        end = i
        for j in range(i + 1, min(len(words), i + 1 + _MAX_WORDS)):
            gap = text[words[j - 1].end() : words[j].start()]
            if words[j].group(0).lower() in _STOPS or gap.strip():
                break
            end = j
        if end > i:
            start, stop = words[i + 1].start(), words[end].end()
            out.append((m.group(0).lower(), text[start:stop], start, stop))
    return out


def _shape(phrase: str) -> tuple[bool, bool]:
    """Whether the phrase holds a digit, and whether its head is capitalised (a name)."""
    words = _DET.sub("", phrase).split()
    return (any(ch.isdigit() for ch in phrase), bool(words) and words[-1][:1].isupper())


def _head(phrase: str) -> str:
    words = _DET.sub("", phrase).split()
    return words[-1].lower() if words else ""


def carry_over_en(new: str, old: str) -> str | None:
    """``old`` with the value ``new`` changes put in, when ``new`` says the rest stays and
    its value has one clear counterpart in ``old``: the phrase with the same head noun
    ("the Oak Avenue salon" for "the Elm Road salon"), else the one phrase after the same
    preposition ("at 3pm" for "at 10am"). None otherwise."""
    if not KEEP_EN.search(new):
        return None
    changed = [f for f in _framed(new) if not KEEP_EN.search(f[1])]  # not "at the same place"
    olds = _framed(old)
    for prep, value, _s, _e in reversed(changed):  # the value is usually named last
        if value.lower() in old.lower():
            continue
        head = _head(value)
        same_head = [o for o in olds if head and _head(o[1]) == head]
        same_prep = [o for o in olds if o[0] == prep]
        # of several after one preposition, the one of the same shape ("3pm" for "10am")
        same_shape = [o for o in same_prep if _shape(o[1]) == _shape(value)]
        spots = same_head or (same_prep if len(same_prep) == 1 else same_shape)
        if not spots and prep in _PLACE_PREPS:  # "moves to Y" for "at X": a place for a place
            digits = _shape(value)[0]  # a time holds a digit ("at 7pm"), a place does not
            spots = [o for o in olds if o[0] in _PLACE_PREPS and _shape(o[1])[0] == digits]
        if len(spots) == 1:
            _p, _v, start, end = spots[0]
            return old[:start] + value + old[end:]
    return None


# --- an updated quantity inside a Fact of several attributes ---------------------------------

_PIECE = rx.compile(r"[,，;；]")
_UNIT = rx.compile(r"^\s*([A-Za-z]+|[\u4e00-\u9fff])")
_CONTENT_EN = rx.compile(r"[A-Za-z]{4,}")
_STOP_EN = frozenset(
    ("user", "user's", "users", "others", "now", "currently", "still", "that", "this")
)


def _numbers(text: str) -> list[tuple[int, int]]:
    return [m.span() for m in NUM_RE.finditer(text) if parse_number(m.group(0)) is not None]


def _unit(text: str, end: int) -> str:
    m = _UNIT.match(text[end:])
    return m.group(1).lower() if m else ""


def _words(text: str) -> set[str]:
    if _CJK.search(text):
        return {w for w, f in cut_zh(text) if len(w) >= 2 and f[:1] in ("n", "v") and w != "用户"}
    return {w.lower() for w in _CONTENT_EN.findall(text)} - _STOP_EN


def _near(a: str, b: str) -> bool:
    """Two numbers of one order of magnitude (a budget of 3000 is updated to 4000, not 1)."""
    x, y = parse_number(a), parse_number(b)
    return bool(x and y and 0.1 <= x / y <= 10)


_BOUNDS = rx.compile(f"{UPPER_WORDS}|{LOWER_WORDS}|{APPROX_WORDS}", rx.IGNORECASE)
_LETTERS = rx.compile(r"[A-Za-z]+|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def _amount(value: str) -> bool:
    """A value that is an amount: a number with at most a unit word or character and a
    bound ("<=400", "六千", "400 euros", "5k 以内"), not a thing that names a count ("两居室")."""
    if money_value(value) is None:
        return False
    rest = _BOUNDS.sub(" ", NUM_RE.sub(" ", value))
    letters = _LETTERS.findall(rest)
    return len(letters) <= 1


def _only_a_quantity(new: str, old: str, value: str | None) -> bool:
    """The change is of a quantity alone: its slot value is an amount, or (no slot) it names
    nothing the older Fact lacks ("搬到了 X 的两居室" changes a place, not a count)."""
    if value is not None:
        return _amount(value)
    said = ". ".join(_SINCE.sub("", p) for p in _PIECE.split(new))  # not "from November"
    return all(w.lower() in old.lower() for w, t in values(said).items() if t == "name")


def carry_quantity(new: str, old: str, value: str | None = None) -> str | None:
    """``old`` with its quantity ``new`` updates put in, when ``old`` holds more than that
    quantity (two numbers, or two comma-joined parts: "3 bedrooms, budget 5k a month") and
    one of its numbers is the counterpart of the new one, by the most signs: the same unit
    after it ("300 euros" / "400 euros"), its part shares a word with ``new`` ("月租不超过五千"
    / "月租…六千"), one order of magnitude. None otherwise: a single-attribute Fact needs
    no carrying, and a change of more than a quantity (``value``: the new Fact's slot
    value) carries nothing."""
    if not _only_a_quantity(new, old, value):
        return None
    fresh = _numbers(new)
    nums = _numbers(old)
    if len(fresh) != 1 or not nums or (len(nums) < 2 and not _PIECE.search(old)):
        return None
    start, end = fresh[0]
    value, unit, words = new[start:end], _unit(new, end), _words(new)
    if any(old[s:e] == value for s, e in nums):
        return None  # the value is there already
    bounds = [0, *(m.end() for m in _PIECE.finditer(old)), len(old) + 1]
    scored: list[tuple[int, int, int]] = []
    for s, e in nums:
        piece = next(old[a:b] for a, b in pairwise(bounds) if a <= s < b)
        score = (
            2 * bool(unit and _unit(old, e) == unit)
            + bool(words & _words(piece))
            + _near(old[s:e], value)
        )
        scored.append((score, s, e))
    best = max(x[0] for x in scored)
    top = [x for x in scored if x[0] == best]
    if best == 0 or len(top) != 1:
        return None
    _score, s, e = top[0]
    return old[:s] + value + old[e:]


__all__ = ["carry_over_en", "carry_quantity"]
