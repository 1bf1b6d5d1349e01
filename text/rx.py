"""Every regular expression of extract/ is compiled here, on RE2, and registered.

RE2 matches in time linear in the input (no backtracking), so no message can stall
extraction however its text is built; ``registered()`` lets a test feed every pattern
pathological input (tests/unit/test_linear_time.py).

Patterns are written in Python ``re`` syntax. ``compile`` translates what RE2 reads
differently: ``\\d \\w \\s`` and their negations become the Unicode classes Python uses
(RE2's own are ASCII only) and ``\\uXXXX`` becomes ``\\x{XXXX}``. Left as RE2 has them:
``\\b`` is an ASCII word boundary (between ``[A-Za-z0-9_]`` and anything else), ``$``
matches at the very end only, and lookaround or backreferences are rejected at import:
consume the context instead, and use a named group for the part that counts.

One search is linear; ``finditer`` is a search per match, so a pattern whose earlier
alternative may need to read to the end of a long run before a later one wins (``[...]*X``
before ``[...]``) is quadratic over many matches: bound such runs (``{0,12}``).

The API is the subset of ``re`` that extract/ uses; a ``str`` replacement in ``sub`` is
literal text (no group references), so a replacement taken from user data is safe.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import re2
from re2 import _re2  # the binding google-re2's own module wraps (see Pattern)

IGNORECASE = re.IGNORECASE
DOTALL = re.DOTALL

_INSIDE = {  # the class body Python gives each escape
    "d": r"\p{Nd}",
    "w": r"\p{L}\p{N}_",
    "s": r"\x09-\x0d\x1c-\x1f\x{85}\p{Z}",
}
_OUTSIDE = {
    **{k: f"[{v}]" for k, v in _INSIDE.items()},
    **{k.upper(): f"[^{v}]" for k, v in _INSIDE.items()},
}
_LOOKAROUND = ("(?=", "(?!", "(?<=", "(?<!")


def _to_re2(pattern: str) -> str:
    """Python ``re`` syntax to RE2 syntax (see the module doc)."""
    if any(look in pattern for look in _LOOKAROUND):
        raise ValueError(f"lookaround is not linear-time, rewrite it: {pattern!r}")
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            if nxt in "uU":
                width = 4 if nxt == "u" else 8
                out.append(r"\x{" + pattern[i + 2 : i + 2 + width] + "}")
                i += 2 + width
                continue
            if in_class and nxt in _INSIDE:
                out.append(_INSIDE[nxt])
            elif in_class and nxt in "DWS":
                raise ValueError(f"negated class escape inside [...]: {pattern!r}")
            elif not in_class and nxt in _OUTSIDE:
                out.append(_OUTSIDE[nxt])
            elif nxt == "Z":
                out.append(r"\z")
            else:
                out.append(pattern[i : i + 2])
            i += 2
            continue
        if in_class and c == "]":
            in_class = False
        elif not in_class and c == "[":
            j = i + 1
            j += pattern[j : j + 1] == "^"
            j += pattern[j : j + 1] == "]"  # a leading "]" is a literal
            out.append(pattern[i:j])
            i, in_class = j, True
            continue
        out.append(c)
        i += 1
    return "".join(out)


def _clean(text: str) -> str:
    """Lone surrogates cannot be UTF-8 encoded: one U+FFFD each keeps every offset."""
    return "".join("\ufffd" if "\ud800" <= ch <= "\udfff" else ch for ch in text)


class Match:
    """The part of ``re.Match`` that extract/ uses; offsets index the original text."""

    __slots__ = ("_names", "_spans", "string")

    def __init__(self, string: str, spans: list[tuple[int, int]], names: dict[str, int]):
        self.string = string
        self._spans = spans
        self._names = names

    def _index(self, group: int | str) -> int:
        return self._names[group] if isinstance(group, str) else group

    def span(self, group: int | str = 0) -> tuple[int, int]:
        return self._spans[self._index(group)]

    def start(self, group: int | str = 0) -> int:
        return self.span(group)[0]

    def end(self, group: int | str = 0) -> int:
        return self.span(group)[1]

    def group(self, group: int | str = 0) -> Any:
        start, end = self.span(group)
        return None if start < 0 else self.string[start:end]

    def __getitem__(self, group: int | str) -> Any:
        return self.group(group)

    def groups(self) -> tuple[Any, ...]:
        return tuple(self.group(i) for i in range(1, len(self._spans)))

    def has(self, name: str) -> bool:
        """Whether the pattern has a group ``name`` and it took part in the match."""
        return name in self._names and self.span(name)[0] >= 0


_NULL = (-1, -1)
_UNANCHORED = _re2.RE2.Anchor.UNANCHORED
_ANCHOR_START = _re2.RE2.Anchor.ANCHOR_START
_ANCHOR_BOTH = _re2.RE2.Anchor.ANCHOR_BOTH


class _Text:
    """A str as RE2 reads it (UTF-8), with byte offsets turned back into str offsets.

    Offsets asked for must not decrease (true of successive matches), so converting all of
    them costs one pass over the text; ASCII text needs no conversion at all."""

    __slots__ = ("_b", "_c", "ascii", "data")

    def __init__(self, text: str) -> None:
        self.ascii = text.isascii()
        try:
            self.data = text.encode("utf-8")
        except UnicodeEncodeError:
            self.data = _clean(text).encode("utf-8")
        self._b = self._c = 0

    def to_bytes(self, pos: int, text: str) -> int:
        return pos if self.ascii else len(text[:pos].encode("utf-8", "surrogatepass"))

    def to_chars(self, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
        if self.ascii:
            return spans
        table = {-1: -1}
        for off in sorted({o for span in spans for o in span if o >= 0}):
            if off < self._b:
                self._b = self._c = 0  # only for a caller going back: start over
            self._c += _re2.BytesToCharLen(self.data, self._b, off)
            self._b = off
            table[off] = self._c
        return [(table[s], table[e]) for s, e in spans]


class Pattern:
    """A compiled RE2 pattern with the part of ``re.Pattern``'s API that extract/ uses.

    It calls the RE2 binding directly: google-re2's Python layer re-decodes offsets and
    builds generators on every call, which tripled the cost of the short searches that
    extraction makes by the thousand."""

    __slots__ = ("_groups", "_names", "_re2", "flags", "pattern")

    def __init__(self, pattern: str, flags: int) -> None:
        if flags & ~(IGNORECASE | DOTALL):
            raise ValueError("only IGNORECASE and DOTALL are supported")
        options = re2.Options()
        options.log_errors = False
        options.case_sensitive = not flags & IGNORECASE
        options.dot_nl = bool(flags & DOTALL)
        self.pattern, self.flags = pattern, flags
        try:
            compiled = re2.compile(_to_re2(pattern), options)
        except re2.error as exc:
            raise ValueError(f"RE2 cannot compile {pattern!r}: {exc}") from exc
        self._re2: Any = compiled._regexp
        self._groups: int = compiled.groups
        self._names: dict[str, int] = dict(compiled.groupindex)

    @property
    def groupindex(self) -> dict[str, int]:
        return dict(self._names)

    def _one(self, anchor: Any, text: str, pos: int) -> Match | None:
        t = _Text(text)
        start = t.to_bytes(max(0, min(pos, len(text))), text)
        spans = self._re2.Match(anchor, t.data, start, len(t.data))
        if spans[0] == _NULL:
            return None
        return Match(text, t.to_chars(spans), self._names)

    def search(self, text: str, pos: int = 0) -> Match | None:
        return self._one(_UNANCHORED, text, pos)

    def match(self, text: str, pos: int = 0) -> Match | None:
        return self._one(_ANCHOR_START, text, pos)

    def fullmatch(self, text: str, pos: int = 0) -> Match | None:
        return self._one(_ANCHOR_BOTH, text, pos)

    def finditer(self, text: str, pos: int = 0) -> Iterator[Match]:
        t = _Text(text)
        at, end = t.to_bytes(max(0, min(pos, len(text))), text), len(t.data)
        while True:
            spans = self._re2.Match(_UNANCHORED, t.data, at, end)
            if spans[0] == _NULL:
                return
            yield Match(text, t.to_chars(spans), self._names)
            if at == end:
                return
            if spans[0][1] == at:  # an empty match: step over one character
                at += _re2.CharLenToBytes(t.data, at, 1)
            else:
                at = spans[0][1]

    def findall(self, text: str) -> list[Any]:
        if self._groups == 0:
            return [m.group() for m in self.finditer(text)]
        if self._groups == 1:
            return [m.group(1) or "" for m in self.finditer(text)]
        return [tuple(g or "" for g in m.groups()) for m in self.finditer(text)]

    def subn(
        self, repl: str | Callable[[Match], str], text: str, count: int = 0
    ) -> tuple[str, int]:
        out: list[str] = []
        last, n = 0, 0
        for m in self.finditer(text):
            if count and n >= count:
                break
            out.append(text[last : m.start()])
            out.append(repl(m) if callable(repl) else repl)
            last, n = m.end(), n + 1
        out.append(text[last:])
        return "".join(out), n

    def sub(self, repl: str | Callable[[Match], str], text: str, count: int = 0) -> str:
        return self.subn(repl, text, count)[0]

    def split(self, text: str, maxsplit: int = 0) -> list[str]:
        out: list[str] = []
        last = 0
        for n, m in enumerate(self.finditer(text)):
            if maxsplit and n >= maxsplit:
                break
            out.append(text[last : m.start()])
            out.extend(m.group(i) for i in range(1, self._groups + 1))
            last = m.end()
        out.append(text[last:])
        return out

    def __repr__(self) -> str:
        return f"rx.compile({self.pattern!r})"


_REGISTRY: dict[tuple[str, int], Pattern] = {}


def compile(pattern: str, flags: int = 0) -> Pattern:
    """The RE2 pattern for ``pattern`` (Python syntax), registered; one object per source."""
    key = (pattern, flags)
    hit = _REGISTRY.get(key)
    if hit is None:
        hit = _REGISTRY[key] = Pattern(pattern, flags)
    return hit


def registered() -> tuple[Pattern, ...]:
    """Every pattern compiled so far (module-level ones exist once their module is imported)."""
    return tuple(_REGISTRY.values())


def escape(text: str) -> str:
    """``re.escape``: the text as a literal in a pattern."""
    return re.escape(text)


def edge(ch: str) -> str:
    """``\\b`` when ``ch`` is one of [A-Za-z0-9_], else nothing: put it beside a term's end
    character so the term does not match inside a longer Latin word."""
    return r"\b" if len(ch) == 1 and ch.isascii() and (ch.isalnum() or ch == "_") else ""


def word(text: str) -> str:
    """``text`` as a literal that does not match inside a longer Latin word."""
    return f"{edge(text[:1])}{escape(text)}{edge(text[-1:])}"


__all__ = [
    "DOTALL",
    "IGNORECASE",
    "Match",
    "Pattern",
    "compile",
    "edge",
    "escape",
    "registered",
    "word",
]
