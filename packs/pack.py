"""The merged pack the extractors read: the lists of every pack layered into one, with
the lookups and patterns built from them once (labels, attributes, filter fields,
gazetteers, team regions), and every domain term for the test that extract/ holds none."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from packs.schema import AttributeSpec, FieldSpec, Lang
from packs.taxonomy import Taxonomy, normalize_name
from text import rx
from text.lang import fold

_CJK = rx.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


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
