"""A small, editable topic taxonomy and its alias matcher.

Each entry has a canonical English name, strong ``aliases`` (one hit is enough to file a
fact under the entry) and weak ``cues`` (they only count when the surrounding facts already
point at the entry). Chinese terms match as substrings, Latin terms on word boundaries with
an optional plural ending. Longer terms are matched first and consume their span, so
a two-word alias wins over a one-word alias inside it.

The entries come from the domain packs (packs/, "taxonomy"); ``load_taxonomy(path)``
still reads a JSON taxonomy (same shape as ``taxonomy_to_dict``).
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from text import rx

STRONG = 1.0
CUE = 0.4

_CJK = rx.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_SEP = rx.compile(r"[\s\-_/]+")


@dataclass(frozen=True)
class TaxonomyEntry:
    name: str
    aliases: tuple[str, ...]
    cues: tuple[str, ...] = ()


@dataclass(frozen=True)
class Taxonomy:
    entries: tuple[TaxonomyEntry, ...]

    def get(self, name: str) -> TaxonomyEntry | None:
        key = normalize_name(name)
        for entry in self.entries:
            if normalize_name(entry.name) == key:
                return entry
        return None

    def extended(self, extra: Sequence[tuple[str, Sequence[str]]]) -> Taxonomy:
        """Add (name, aliases) pairs: known names gain aliases, others become entries."""
        entries = list(self.entries)
        index = {normalize_name(e.name): i for i, e in enumerate(entries)}
        for name, aliases in extra:
            key = normalize_name(name)
            if not key:
                continue
            if key in index:
                old = entries[index[key]]
                merged = _dedupe((*old.aliases, *aliases))
                entries[index[key]] = TaxonomyEntry(old.name, merged, old.cues)
            else:
                index[key] = len(entries)
                entries.append(TaxonomyEntry(key, _dedupe((key, *aliases))))
        return Taxonomy(tuple(entries))


def normalize_name(name: str) -> str:
    """Topic names: NFKC, lower case, single spaces."""
    return " ".join(unicodedata.normalize("NFKC", name).lower().split())


def normalize_text(text: str) -> str:
    """Text as the matcher sees it: NFKC, lower case, separators folded to one space."""
    return _SEP.sub(" ", unicodedata.normalize("NFKC", text).lower()).strip()


def match_scores(text: str, taxonomy: Taxonomy) -> dict[str, float]:
    """Score every entry hit by ``text``: STRONG per alias, CUE per cue, each counted once.

    A term shared by several entries credits all of them; a longer term hides the shorter
    terms inside its span.
    """
    hay = normalize_text(text)
    taken = [False] * len(hay)
    scores: dict[str, float] = {}
    for term in _compiled(taxonomy):
        if term.pieces[0] not in hay or not all(p in hay for p in term.pieces[1:]):
            continue  # a match holds every piece: most terms end here, without a scan
        spans = [
            m.span()
            for m in term.pattern.finditer(hay)
            if m.end() > m.start() and not any(taken[m.start() : m.end()])
        ]
        if not spans:
            continue
        for start, end in spans:
            taken[start:end] = [True] * (end - start)
        for name, weight in term.owners:
            scores[name] = scores.get(name, 0.0) + weight
    return scores


@dataclass(frozen=True)
class _Term:
    pattern: rx.Pattern
    pieces: tuple[str, ...]  # literal text every match contains
    owners: tuple[tuple[str, float], ...]  # (entry name, weight)


@lru_cache(maxsize=16)
def _compiled(taxonomy: Taxonomy) -> tuple[_Term, ...]:
    """Distinct terms, longest first, each with the entries (and weights) that use it."""
    owners: dict[str, dict[str, float]] = {}
    for entry in taxonomy.entries:
        for terms, weight in ((entry.aliases, STRONG), (entry.cues, CUE)):
            for term in terms:
                norm = _normalized_term(term)
                if norm:
                    slot = owners.setdefault(norm, {})
                    slot[entry.name] = max(slot.get(entry.name, 0.0), weight)
    ordered = sorted(owners, key=lambda t: (-len(t), t))
    return tuple(
        _Term(_term_pattern(t), tuple(t.split(" ")), tuple(owners[t].items())) for t in ordered
    )


@lru_cache(maxsize=8192)  # a user's taxonomy is the pack's plus its Topics: terms recur
def _normalized_term(term: str) -> str:
    return normalize_text(term)


@lru_cache(maxsize=8192)
def _term_pattern(norm: str) -> rx.Pattern:
    """The pattern of a normalized term (the words of a Latin term on word boundaries,
    with an optional ending; a Chinese term as a substring, spaces optional)."""
    if _CJK.search(norm):
        return rx.compile(rx.escape(norm).replace(r"\ ", r"\s*"))
    words = norm.split(" ")
    body = r"\s+".join(rx.escape(w) for w in words)
    # plural always; -ed/-ing only for longer words ("painted", not "car" → "cared")
    ending = r"(?:s|es|ed|ing)?" if len(words[-1]) >= 4 else r"(?:s|es)?"
    # not inside a longer Latin word or number (the text has no "_" or capitals)
    return rx.compile(f"{rx.edge(norm[:1])}{body}{ending}{rx.edge(norm[-1:])}")


def _dedupe(items: Sequence[str]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for item in items:
        if item and item not in seen:
            seen[item] = None
    return tuple(seen)


def taxonomy_from_dict(data: Mapping[str, Any]) -> Taxonomy:
    """Build a Taxonomy from ``{"topics": [{"name", "aliases", "cues"}]}``."""
    topics = data.get("topics")
    if not isinstance(topics, list):
        raise ValueError("taxonomy needs a 'topics' list")
    entries: list[TaxonomyEntry] = []
    for item in topics:
        name = normalize_name(str(item.get("name", "")))
        if not name:
            raise ValueError("taxonomy topic without a name")
        aliases = tuple(str(a) for a in item.get("aliases", ()))
        cues = tuple(str(c) for c in item.get("cues", ()))
        entries.append(TaxonomyEntry(name, _dedupe((name, *aliases)), _dedupe(cues)))
    return Taxonomy(tuple(entries))


def taxonomy_to_dict(taxonomy: Taxonomy) -> dict[str, Any]:
    return {
        "topics": [
            {"name": e.name, "aliases": list(e.aliases), "cues": list(e.cues)}
            for e in taxonomy.entries
        ]
    }


def load_taxonomy(path: str | Path) -> Taxonomy:
    with Path(path).open(encoding="utf-8") as fh:
        return taxonomy_from_dict(json.load(fh))
