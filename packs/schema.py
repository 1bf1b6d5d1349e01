"""The format of a pack file (version 1): the pydantic models a YAML pack is validated
against, so a bad pack fails at load naming its file and field (loader.py)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

Term = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=80)]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=60)]
Lang = Literal["zh", "en"]


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
