"""Domain packs: every word list the extractors use, as versioned YAML data.

The engine in extract/ holds grammar only (pronouns, cue words, number formats). What a
deployment knows about its domains — the Topic taxonomy, fact labels, behaviour attributes
and filter fields, gazetteers (cities, brands), team regions, job words, the words for
other people (whose statements are not the user's facts) and summary wording
— comes from packs: ``extract/packs/<name>.yaml`` shipped with the package, or any YAML
file given by path. Packs layer in the order given: a later pack extends the lists of an
earlier one and overrides its single values (see README, "Domain packs").

Packs are loaded once per spec and cached. ``current()`` is the one accessor the
extractors read; the service selects the packs with ``activate(spec)`` (GUMEM_PACKS).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Annotated, Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError

from core.errors import ConfigError
from extract.packs.taxonomy import Taxonomy, TaxonomyEntry, normalize_name
from extract.text import rx
from extract.text.lang import fold

FORMAT_VERSION = 1
DEFAULT_SPEC = "general"
PACK_DIR = Path(__file__).parent

Term = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80)]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=60)]
Lang = Literal["zh", "en"]

_CJK = rx.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_SLUG = rx.compile(r"^[a-z0-9_]+$")


# --- the file schema ------------------------------------------------------------------------


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TopicSpec(_Model):
    """A Topic: one alias hit files a fact under it; cues count only with context."""

    name: Name
    aliases: tuple[Term, ...] = ()
    cues: tuple[Term, ...] = ()


class AttributeSpec(_Model):
    """A behaviour attribute (a trait of items): one id for its names in every language."""

    id: Name
    zh: Term
    en: Term
    aliases: tuple[Term, ...] = ()


class FieldSpec(_Model):
    """A filter field ("price"): its aliases, the slot it fills, how its value reads."""

    id: Name
    aliases: tuple[Term, ...] = ()
    slot: Name | None = None  # default "filter:<id>"
    value: Literal["text", "money", "size", "entity"] = "text"
    label: Name | None = None  # fact label, default the slot family
    zh: str | None = None  # wording; placeholders {value} (normalised) and {raw}
    en: str | None = None
    zh_range: str | None = None  # wording when a money value is a range
    en_range: str | None = None


class PackFile(_Model):
    version: int
    description: str = ""
    taxonomy: tuple[TopicSpec, ...] = ()
    labels: dict[Name, tuple[Term, ...]] = Field(default_factory=dict)
    attributes: tuple[AttributeSpec, ...] = ()
    fields: tuple[FieldSpec, ...] = ()
    entities: dict[Name, tuple[tuple[Term, ...], ...]] = Field(default_factory=dict)
    team_regions: dict[Term, Name] = Field(default_factory=dict)
    jobs: dict[Lang, tuple[Term, ...]] = Field(default_factory=dict)
    people: dict[Lang, tuple[Term, ...]] = Field(default_factory=dict)
    pets: dict[Lang, tuple[Term, ...]] = Field(default_factory=dict)
    household: dict[Lang, tuple[Term, ...]] = Field(default_factory=dict)
    conditions: dict[Lang, tuple[Term, ...]] = Field(default_factory=dict)
    relations: dict[Lang, tuple[tuple[Term, ...], ...]] = Field(default_factory=dict)
    subject_kinds: dict[Name, dict[Lang, tuple[Term, ...]]] = Field(default_factory=dict)
    wording: dict[Name, dict[Lang, str]] = Field(default_factory=dict)
    topic_names: dict[Name, dict[Lang, Name]] = Field(default_factory=dict)
    endings: dict[Lang, tuple[Term, ...]] = Field(default_factory=dict)


# --- the merged pack ------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)  # identity equality: packs are cache keys
class Pack:
    sources: tuple[str, ...]
    taxonomy: Taxonomy
    labels: tuple[tuple[str, tuple[str, ...]], ...] = ()
    attributes: tuple[AttributeSpec, ...] = ()
    fields: tuple[FieldSpec, ...] = ()
    entities: tuple[tuple[str, tuple[tuple[str, ...], ...]], ...] = ()
    team_regions: Mapping[str, str] = field(default_factory=dict)
    jobs: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    people: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    pets: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # people the user lives with: their routines shape the user's home
    household: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # health conditions: someone's condition is a constraint to respect
    conditions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # synonym groups of people nouns per language ("dad", "father", "daddy")
    relations: Mapping[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)
    # head-noun cues of a subject's kind: kind -> language -> terms
    subject_kinds: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    wording: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    topic_names: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    endings: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def words(self, key: str, lang: Lang) -> str:
        """A wording template, "" when no pack defines it."""
        return self.wording.get(key, {}).get(lang, "")

    def topic_name(self, name: str, lang: Lang) -> str:
        """A taxonomy Topic's name in ``lang`` (the name itself when no pack translates it)."""
        key = self.topic_canonical(name)
        return normalize_name(self.topic_names.get(key, {}).get(lang, "")) or name

    def topic_canonical(self, name: str) -> str:
        """The taxonomy name a Topic name stands for, in any language (its Chinese name, say)."""
        key = normalize_name(name)
        return self._topic_canonical.get(key, key)

    @cached_property
    def _topic_canonical(self) -> dict[str, str]:
        return {
            normalize_name(local): normalize_name(canonical)
            for canonical, names in self.topic_names.items()
            for local in names.values()
        }

    def alternation(self, terms: Sequence[str]) -> str:
        """Escaped terms as one regex alternation, longest first (never empty: an empty list
        gives a class that matches nothing)."""
        ordered = sorted(set(terms), key=lambda t: (-len(t), t))
        return "|".join(rx.escape(t) for t in ordered) or r"[^\s\S]"

    @cached_property
    def label_patterns(self) -> tuple[tuple[str, rx.Pattern], ...]:
        """Latin terms match whole words ("term*": a word start), CJK terms and symbols anywhere."""
        out = []
        for name, terms in self.labels:
            parts, latin = [], []
            for term in terms:
                stem = fold(term.removesuffix("*"))
                if _CJK.search(stem) or not stem[:1].isalnum():
                    parts.append(rx.escape(stem))
                elif term.endswith("*"):
                    latin.append(rx.escape(stem))
                else:
                    latin.append(rx.escape(stem) + r"(?:$|[^\p{L}\p{N}])")
            if latin:
                parts.append(r"(?:^|[^\p{L}\p{N}])(?:" + "|".join(latin) + ")")
            if parts:
                out.append((name, rx.compile("|".join(parts), rx.IGNORECASE)))
        return tuple(out)

    def labels_in(self, text: str) -> list[str]:
        return [name for name, pattern in self.label_patterns if pattern.search(text)]

    @cached_property
    def attribute_by_alias(self) -> dict[str, AttributeSpec]:
        out: dict[str, AttributeSpec] = {}
        for attr in self.attributes:
            for alias in (attr.zh, attr.en, *attr.aliases):
                out[fold(alias)] = attr
        return out

    @cached_property
    def attribute_pattern(self) -> rx.Pattern:
        aliases = sorted(self.attribute_by_alias, key=lambda a: (-len(a), a))
        parts = [rx.escape(a) if _CJK.search(a) else rx.word(a) for a in aliases]
        return rx.compile("|".join(parts) or r"[^\s\S]", rx.IGNORECASE)

    @cached_property
    def field_by_alias(self) -> dict[str, FieldSpec]:
        out: dict[str, FieldSpec] = {}
        for spec in self.fields:
            for alias in (spec.id, *spec.aliases):
                out[fold(alias)] = spec
        return out

    @cached_property
    def gazetteer(self) -> dict[str, tuple[str, str]]:
        """Folded alias → (entity label, canonical name)."""
        table: dict[str, tuple[str, str]] = {}
        for label, rows in self.entities:
            for row in rows:
                for alias in row:
                    table[fold(alias)] = (label, row[0])
        return table

    @cached_property
    def gazetteer_pattern(self) -> rx.Pattern:
        aliases = sorted(
            {a for _, rows in self.entities for row in rows for a in row},
            key=lambda a: (-len(a), a),
        )
        parts = [rx.escape(a) if _CJK.search(a) else rx.word(a) for a in aliases]
        return rx.compile("|".join(parts) or r"[^\s\S]", rx.IGNORECASE)

    @cached_property
    def folded_regions(self) -> dict[str, str]:
        return {fold(k): v for k, v in self.team_regions.items()}

    def vocabulary(self) -> set[str]:
        """Every domain term of the pack (for the test that extract/**/*.py holds none)."""
        terms: set[str] = set()
        for entry in self.taxonomy.entries:
            terms.update((entry.name, *entry.aliases, *entry.cues))
        for _, words in self.labels:
            terms.update(words)
        for attr in self.attributes:
            terms.update((attr.zh, attr.en, *attr.aliases))
        for spec in self.fields:
            terms.update(spec.aliases)
        for _, rows in self.entities:
            terms.update(a for row in rows for a in row)
        terms.update(self.team_regions)
        for words in (
            *self.jobs.values(),
            *self.people.values(),
            *self.pets.values(),
            *self.household.values(),
            *self.conditions.values(),
            *self.endings.values(),
        ):
            terms.update(words)
        for groups in self.relations.values():
            terms.update(w for g in groups for w in g)
        for by_lang in self.subject_kinds.values():
            terms.update(w for words in by_lang.values() for w in words)
        return {fold(t) for t in terms}


# --- loading --------------------------------------------------------------------------------


def _files(item: str) -> list[Path]:
    """A built-in pack name, or a path to a pack file or a directory of pack files."""
    if "/" in item or "\\" in item or item.endswith((".yaml", ".yml")):
        path = Path(item).expanduser()
    elif _SLUG.match(item):
        path = PACK_DIR / f"{item}.yaml"
        if not path.exists():
            path = PACK_DIR / item
    else:
        raise ConfigError(f"GUMEM_PACKS: {item!r} is neither a pack name nor a path")
    if path.is_dir():
        found = sorted([*path.glob("*.yaml"), *path.glob("*.yml")])
        if not found:
            raise ConfigError(f"pack {item!r}: no .yaml files in {path}")
        return found
    if not path.is_file():
        raise ConfigError(f"pack {item!r}: no such pack ({path} does not exist)")
    return [path]


def _read(path: Path) -> PackFile:
    try:
        data: Any = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(
            f"pack file {path}: cannot read it{where} ({type(exc).__name__})"
        ) from exc
    if not isinstance(data, dict):
        raise ConfigError(f"pack file {path}: the top level must be a mapping")
    try:
        pack = PackFile.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "(top level)"
        raise ConfigError(f"pack file {path}: field {where}: {err['msg']}") from None
    if pack.version != FORMAT_VERSION:
        raise ConfigError(
            f"pack file {path}: field version: format {pack.version} is not supported "
            f"(this GUMem reads version {FORMAT_VERSION})"
        )
    return pack


def _split(spec: str | Sequence[str]) -> tuple[str, ...]:
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    names = tuple(i.strip() for i in items if i.strip())
    if not names:
        raise ConfigError("GUMEM_PACKS: no pack named (give e.g. 'general')")
    return names


def load(spec: str | Sequence[str] = DEFAULT_SPEC) -> Pack:
    """The packs of ``spec`` (comma list or sequence of names/paths), merged in order."""
    return _load(_split(spec))


@lru_cache(maxsize=8)
def _load(names: tuple[str, ...]) -> Pack:
    files = [(path, _read(path)) for name in names for path in _files(name)]
    return merge([f for _, f in files], sources=tuple(str(p) for p, _ in files))


def merge(files: Sequence[PackFile], sources: tuple[str, ...] = ()) -> Pack:
    """Layer pack files: lists extend (by name for taxonomy/labels), single values override."""
    topics: dict[str, tuple[str, list[str], list[str]]] = {}
    labels: dict[str, list[str]] = {}
    attributes: dict[str, AttributeSpec] = {}
    fields: dict[str, FieldSpec] = {}
    entities: dict[str, list[tuple[str, ...]]] = {}
    regions: dict[str, str] = {}
    jobs: dict[str, list[str]] = {}
    people: dict[str, list[str]] = {}
    pets: dict[str, list[str]] = {}
    household: dict[str, list[str]] = {}
    conditions: dict[str, list[str]] = {}
    relations: dict[str, list[tuple[str, ...]]] = {}
    kinds: dict[str, dict[str, list[str]]] = {}
    wording: dict[str, dict[str, str]] = {}
    topic_names: dict[str, dict[str, str]] = {}
    endings: dict[str, list[str]] = {}
    for f in files:
        for t in f.taxonomy:
            key = normalize_name(t.name)
            _, aliases, cues = topics.setdefault(key, (key, [], []))
            aliases.extend(t.aliases)
            cues.extend(t.cues)
        for name, terms in f.labels.items():
            labels.setdefault(name, []).extend(terms)
        attributes.update((a.id, a) for a in f.attributes)
        fields.update((s.id, s) for s in f.fields)
        for label, rows in f.entities.items():
            entities.setdefault(label, []).extend(rows)
        regions.update(f.team_regions)
        for lang, words in f.jobs.items():
            jobs.setdefault(lang, []).extend(words)
        for lang, words in f.people.items():
            people.setdefault(lang, []).extend(words)
        for lang, words in f.pets.items():
            pets.setdefault(lang, []).extend(words)
        for lang, words in f.household.items():
            household.setdefault(lang, []).extend(words)
        for lang, words in f.conditions.items():
            conditions.setdefault(lang, []).extend(words)
        for lang, groups in f.relations.items():
            relations.setdefault(lang, []).extend(groups)
        for kind, by_lang in f.subject_kinds.items():
            for lang, words in by_lang.items():
                kinds.setdefault(kind, {}).setdefault(lang, []).extend(words)
        for key, texts in f.wording.items():
            wording.setdefault(key, {}).update({str(k): v for k, v in texts.items()})
        for key, names in f.topic_names.items():
            topic_names.setdefault(normalize_name(key), {}).update(
                {str(k): v for k, v in names.items()}
            )
        for lang, words in f.endings.items():
            endings.setdefault(lang, []).extend(words)
    taxonomy = Taxonomy(
        tuple(
            TaxonomyEntry(name, _dedupe((name, *aliases)), _dedupe(cues))
            for name, aliases, cues in topics.values()
        )
    )
    return Pack(
        sources=sources,
        taxonomy=taxonomy,
        labels=tuple((n, _dedupe(t)) for n, t in labels.items()),
        attributes=tuple(attributes.values()),
        fields=tuple(fields.values()),
        entities=tuple((label, tuple(rows)) for label, rows in entities.items()),
        team_regions=regions,
        jobs={lang: _dedupe(words) for lang, words in jobs.items()},
        people={lang: _dedupe(words) for lang, words in people.items()},
        pets={lang: _dedupe(words) for lang, words in pets.items()},
        household={lang: _dedupe(words) for lang, words in household.items()},
        conditions={lang: _dedupe(words) for lang, words in conditions.items()},
        relations={lang: tuple(groups) for lang, groups in relations.items()},
        subject_kinds={
            kind: {lang: _dedupe(words) for lang, words in by_lang.items()}
            for kind, by_lang in kinds.items()
        },
        wording=wording,
        topic_names=topic_names,
        endings={lang: _dedupe(words) for lang, words in endings.items()},
    )


def _dedupe(items: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i for i in items if i))


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
