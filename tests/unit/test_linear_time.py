"""Text processing in linear time: no message can stall extraction (issue 15, class 1).

Every pattern of extract/ is compiled through text/rx.py, so this test covers each one,
including patterns added later: it feeds them pathological strings of growing length and
fails when the time grows faster than linearly. Then one whole chat message of 20,000
characters (the API's maximum) of the same kinds is extracted with the real pipelines.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from spacy.language import Language

import consolidation.summaries
import consolidation.topics
import corrections.conflicts
import extract.chat.facts
import extract.events.behaviour
import text.time_window
import text.timecues
from extract.types import Lang, MessageRecord
from packs import load as load_packs
from packs.taxonomy import match_scores
from text import rx

# 4x the length: linear time takes about 4x as long, quadratic 16x, cubic 64x. (Below about
# 6k characters RE2 uses a cheaper matcher, so the small size stays above that.)
SMALL, LARGE = 8_000, 32_000
MAX_RATIO = 12.0
NOISE_FLOOR = 0.01  # seconds at LARGE under which a ratio means nothing
MAX_SECONDS = 2.0  # for all operations of one pattern on one LARGE input (>30k matches)
MESSAGE_CHARS = 20_000
MESSAGE_SECONDS = 30.0  # one whole message, spaCy included, on a loaded CI machine


def _cycle(unit: str) -> Callable[[int], str]:
    return lambda n: (unit * (n // len(unit) + 1))[:n]


# the shapes that make backtracking engines blow up: long runs one quantifier can take in
# many ways, runs that almost match, and runs of what a pattern skips
INPUTS: dict[str, Callable[[int], str]] = {
    "digits": _cycle("1"),
    "digits with commas": _cycle("1,"),
    "digits with dots": _cycle("1."),
    "digits and spaces": _cycle("1 "),
    "digits and k": _cycle("1k"),
    "money": _cycle("$1 "),
    "spaces": _cycle(" "),
    "newlines": _cycle("\n"),
    "words": _cycle("ab "),
    "capitalised words": _cycle("Ab "),
    "letters then !": lambda n: "a" * (n - 1) + "!",
    "hyphens": _cycle("a-"),
    "long s": _cycle("ſ"),
    "CJK": _cycle("一"),
    "Chinese numerals": _cycle("一百"),
    "Chinese particles": _cycle("好吧"),
    "Chinese I am": _cycle("我是"),
    "Chinese money": _cycle("预算1元到"),
}


def _run(pattern: rx.Pattern, text: str) -> float:
    """CPU seconds (other processes on the machine do not count) for every operation."""
    start = time.process_time()
    pattern.search(text)
    pattern.match(text)
    pattern.fullmatch(text)
    for _ in pattern.finditer(text):
        pass
    return time.process_time() - start


def _best(pattern: rx.Pattern, small: str, large: str) -> tuple[float, float]:
    """Best of three for each size, interleaved so a slower spell hits both alike."""
    runs = [(_run(pattern, small), _run(pattern, large)) for _ in range(3)]
    return min(r[0] for r in runs), min(r[1] for r in runs)


def _all_patterns() -> tuple[rx.Pattern, ...]:
    # module-level patterns exist once their modules are imported; the taxonomy's are built
    # on first use
    for module in (
        extract.events.behaviour,
        extract.chat.facts,
        consolidation.summaries,
        text.timecues,
        text.time_window,
        corrections.conflicts,
    ):
        assert module.__name__
    assert consolidation.topics.__name__
    match_scores("warm up", load_packs("general").taxonomy)
    return rx.registered()


def test_every_pattern_is_linear() -> None:
    patterns = _all_patterns()
    assert len(patterns) > 150
    texts = {name: (make(SMALL), make(LARGE)) for name, make in INPUTS.items()}
    slow: list[str] = []
    worst = (0.0, "", "")
    for pattern in patterns:
        for name, (small, large) in texts.items():
            t_large = _run(pattern, large)
            if t_large > worst[0]:
                worst = (t_large, pattern.pattern[:60], name)
            if t_large < NOISE_FLOOR:
                continue
            t_small, t_large = _best(pattern, small, large)  # worth a closer look
            ratio = t_large / max(t_small, 1e-4)
            if t_large > MAX_SECONDS or (t_large > NOISE_FLOOR and ratio > MAX_RATIO):
                slow.append(f"{pattern!r} on {name}: {t_small:.4f}s -> {t_large:.4f}s")
    print(
        f"\n{len(patterns)} patterns x {len(texts)} inputs; slowest at {LARGE} chars: "
        f"{worst[0] * 1000:.1f} ms ({worst[1]!r} on {worst[2]})"
    )
    assert not slow, "super-linear patterns:\n" + "\n".join(slow)


def test_lookaround_is_refused() -> None:
    with pytest.raises(ValueError, match="lookaround"):
        rx.compile(r"a(?=b)")
    with pytest.raises(ValueError, match="lookaround"):
        rx.compile(r"(?<!x)a")


def test_python_classes_keep_their_unicode_meaning() -> None:
    assert rx.compile(r"\d+").fullmatch("١٢٣")  # Arabic-Indic digits, as in Python's re
    assert rx.compile(r"\w+").fullmatch("São_Paulo")
    assert rx.compile(r"\s").fullmatch("\u3000")  # ideographic space
    assert rx.compile(r"[\u4e00-\u9fff]+").fullmatch("中文")
    m = rx.compile(r"(?P<city>[A-Z]\w+) (?P<n>\d+)").search("到 Zürich 42 号")
    assert m is not None and m.group("city") == "Zürich" and m.span("n") == (9, 11)


def _message(text: str, lang: Lang) -> MessageRecord:
    return MessageRecord(
        message_id="m1",
        user_id="u1",
        session_id="s1",
        role="user",
        content=text,
        timestamp=datetime(2024, 5, 1, 12, tzinfo=UTC),
        lang=lang,
    )


# the inputs that took minutes on the backtracking patterns, and cost spaCy little
MESSAGE_INPUTS = ("digits", "digits with commas", "letters then !", "Chinese numerals")


@pytest.mark.parametrize("name", MESSAGE_INPUTS)
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_one_long_message_is_extracted_in_bounded_time(
    name: str, lang: Lang, en_nlp: Language, zh_nlp: Language
) -> None:
    text = INPUTS[name](MESSAGE_CHARS)
    start = time.perf_counter()
    result = extract.chat.facts.extract_chats([_message(text, lang)], en_nlp, zh_nlp)
    took = time.perf_counter() - start
    print(f"\n{MESSAGE_CHARS} chars of {name} ({lang}): {took:.2f}s")
    assert len(result) == 1
    assert took < MESSAGE_SECONDS
