"""Domain packs: every word list the extractors use, as versioned YAML data.

The engine (extract/, corrections/, consolidation/) holds grammar only (pronouns, cue
words, number formats). What a deployment knows about its domains — the Topic taxonomy,
fact labels, behaviour attributes
and filter fields, gazetteers (cities, brands), team regions, job words, the words for
other people (whose statements are not the user's facts) and summary wording
— comes from packs: ``packs/<name>.yaml`` shipped with the package, or any YAML
file given by path. Packs layer in the order given: a later pack extends the lists of an
earlier one and overrides its single values (see README, "Domain packs").

Packs are loaded once per spec and cached. ``current()`` is the one accessor the
extractors read; the service selects the packs with ``activate(spec)`` (GUMEM_PACKS).
A pack file's format is in schema.py, the merged ``Pack`` in pack.py, loading and
layering (``load``) in loader.py, the Topic taxonomy and its matcher in taxonomy.py. Of
extract/ the packs import only text.rx and text.lang's ``fold``: the stages read them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence

from packs.loader import DEFAULT_SPEC, load
from packs.pack import Pack
from packs.schema import FieldSpec
from text import rx

# --- the active pack ------------------------------------------------------------------------

_lock = threading.Lock()
_current: Pack | None = None


def current() -> Pack:
    """The packs the extractors use: those last activated, else the default ("general")."""
    global _current
    if _current is None:
        with _lock:
            if _current is None:
                _current = load(DEFAULT_SPEC)
    return _current


def activate(spec: str | Sequence[str]) -> Pack:
    """Load ``spec`` (raising ConfigError for a bad pack) and make it the current pack."""
    global _current
    pack = load(spec)
    with _lock:
        _current = pack
    return pack


class PackPattern:
    """A regex built from the current pack, rebuilt when another pack is activated.

    For module-level patterns that embed a pack word list; ``search``, ``match`` and
    ``finditer`` behave as the compiled pattern's."""

    def __init__(self, build: Callable[[Pack], rx.Pattern]) -> None:
        self._build = build
        self._built: tuple[Pack, rx.Pattern] | None = None

    def pattern(self) -> rx.Pattern:
        pack, built = current(), self._built
        if built is None or built[0] is not pack:
            built = self._built = (pack, self._build(pack))
        return built[1]

    def search(self, text: str, pos: int = 0) -> rx.Match | None:
        return self.pattern().search(text, pos)

    def match(self, text: str, pos: int = 0) -> rx.Match | None:
        return self.pattern().match(text, pos)

    def finditer(self, text: str, pos: int = 0) -> Iterator[rx.Match]:
        return self.pattern().finditer(text, pos)


__all__ = [
    "DEFAULT_SPEC",
    "FieldSpec",
    "Pack",
    "PackPattern",
    "activate",
    "current",
    "load",
]
