"""Packs read and merged: a built-in pack name, a file or a directory of files, read and
validated (schema.py), then layered in the order given into one Pack (pack.py); cached
per spec."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import ValidationError

from core.errors import ConfigError
from packs.pack import Pack
from packs.schema import AttributeSpec, FieldSpec, PackFile
from packs.taxonomy import Taxonomy, TaxonomyEntry, normalize_name
from text import rx

FORMAT_VERSION = 1
DEFAULT_SPEC = "general"
PACK_DIR = Path(__file__).parent
_SLUG = rx.compile(r"^[a-z0-9_]+$")
_T = TypeVar("_T")


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
        _extend(labels, f.labels.items())
        attributes.update((a.id, a) for a in f.attributes)
        fields.update((s.id, s) for s in f.fields)
        _extend(entities, f.entities.items())
        regions.update(f.team_regions)
        _extend(jobs, f.jobs.items())
        _extend(people, f.people.items())
        _extend(pets, f.pets.items())
        _extend(household, f.household.items())
        _extend(conditions, f.conditions.items())
        _extend(relations, f.relations.items())
        for kind, by_lang in f.subject_kinds.items():
            _extend(kinds.setdefault(kind, {}), by_lang.items())
        for key, texts in f.wording.items():
            wording.setdefault(key, {}).update({str(k): v for k, v in texts.items()})
        for key, names in f.topic_names.items():
            topic_names.setdefault(normalize_name(key), {}).update(
                {str(k): v for k, v in names.items()}
            )
        _extend(endings, f.endings.items())
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
        jobs=_deduped(jobs),
        people=_deduped(people),
        pets=_deduped(pets),
        household=_deduped(household),
        conditions=_deduped(conditions),
        relations={lang: tuple(groups) for lang, groups in relations.items()},
        subject_kinds={kind: _deduped(by_lang) for kind, by_lang in kinds.items()},
        wording=wording,
        topic_names=topic_names,
        endings=_deduped(endings),
    )


def _extend(into: dict[str, list[_T]], more: Iterable[tuple[str, Sequence[_T]]]) -> None:
    """Each key's items after the ones the packs before gave it."""
    for key, items in more:
        into.setdefault(key, []).extend(items)


def _deduped(by_key: dict[str, list[str]]) -> dict[str, tuple[str, ...]]:
    return {key: _dedupe(items) for key, items in by_key.items()}


def _dedupe(items: Sequence[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(i for i in items if i))
