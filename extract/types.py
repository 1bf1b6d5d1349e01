"""Typed values passed between extract/, graph/ and api/. No database access here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol

from core.inputs import EVENT_TYPES as EVENT_TYPES
from core.inputs import ROLES as ROLES
from core.inputs import MessageHead
from text.lang import Lang as Lang

Kind = Literal[
    "preference", "constraint", "plan", "identity", "behavior_pattern", "timeline", "fact"
]
Polarity = Literal["likes", "avoids", "neutral"]


AUTHOR_KEYS = ("speaker", "name", "display_name", "displayName", "user_name", "userName")
AUTHOR_MAX_CHARS = 40


def author_name(metadata: dict[str, Any]) -> str | None:
    """Who wrote a Message when its metadata names them (`speaker`, `name`, or the user's
    display name), folded to one short line; None when no name is given."""
    for key in AUTHOR_KEYS:
        value = metadata.get(key)
        if isinstance(value, str):
            name = " ".join(value.split())[:AUTHOR_MAX_CHARS].strip()
            if name:
                return name
    return None


def authored(content: str, metadata: dict[str, Any]) -> str:
    """A Message's text as it is embedded: after its author's name when known."""
    name = author_name(metadata)
    return f"{name}: {content}" if name else content


@dataclass(frozen=True)
class MessageRecord(MessageHead):
    """A stored Message as extraction sees it."""

    event_type: str = "message"
    page: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    lang: Lang = "en"
    # the assistant turn just before this one in its session, when there is one: a short
    # answer ("步行十分钟以内吧", "yes, always") takes its attribute from that question
    asked: str | None = None
    asked_id: str | None = None
    # the user's own turn just before this one in its session: whom "he"/"她" stands for
    # when this turn names no one before it
    said_before: str | None = None


@dataclass(frozen=True)
class EntityRef:
    name: str
    type: str
    normalized: str


@dataclass(frozen=True)
class FactBody:
    """What a Fact says, drafted or stored: its text, kind, sources, time and slot."""

    content: str
    kind: Kind
    source_message_ids: tuple[str, ...]
    time_start: datetime
    time_end: datetime
    lang: Lang
    entities: tuple[EntityRef, ...] = ()
    labels: tuple[str, ...] = ()
    slot: str | None = None
    value: str | None = None
    polarity: Polarity = "neutral"
    explicit: bool = True
    confidence: float = 1.0


@dataclass(frozen=True)
class FactDraft(FactBody):
    """A Fact before it is written: everything graph/ needs to MERGE it."""

    is_correction: bool = False
    cue: bool = False  # the clause itself says something changed (a marker or change cue)
    key: str = ""  # stable identity within a user: "kind:slot" or normalised content
    anchors: tuple[str, ...] = ()  # business ids (order, booking) seen in the sources
    retracts: tuple[str, ...] = ()  # words of what stops being true ("no longer X")
    # whose fact it is: None for the user, else an entity of the user's world in the user's
    # words without the possessive ("舅舅", "室友小陈", "father", "Dan", "读书会")
    subject: str | None = None
    subject_kind: str = "user"  # person, pet, event, place, org, item, thing
    subject_aliases: tuple[str, ...] = ()  # other names of it ("室友", "小陈")


@dataclass(frozen=True)
class Rejection:
    """Why a candidate did not become a Fact (explain/debug output, never stored)."""

    source_message_ids: tuple[str, ...]
    reason: str
    text: str = ""


@dataclass(frozen=True)
class Extraction:
    facts: tuple[FactDraft, ...]
    rejections: tuple[Rejection, ...] = ()


@dataclass(frozen=True, kw_only=True)
class FactRecord(FactBody):
    """A stored Fact as consolidation sees it (built by keywords: its ids follow the body)."""

    fact_id: str
    user_id: str
    validity: str = "active"
    event_types: tuple[str, ...] = ()
    embedding: tuple[float, ...] | None = None
    key: str = ""
    session_ids: tuple[str, ...] = ()
    anchors: tuple[str, ...] = ()
    subject: str | None = None  # whom it is about (an Entity's name); None: the user
    subject_kind: str = "user"


@dataclass(frozen=True)
class TopicRecord:
    """A user's existing Topic."""

    topic_id: str
    name: str
    embedding: tuple[float, ...] | None = None
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class SummaryDraft:
    """A Summary to write for one group of a Topic's active Facts."""

    topic: str
    content: str
    source_fact_ids: tuple[str, ...]
    confidence: float
    event_start: datetime
    event_end: datetime
    lang: Lang
    labels: tuple[str, ...] = ()
    entities: tuple[EntityRef, ...] = ()
    decay_factor: float = 0.01
    anchors: tuple[str, ...] = ()
    evidence: dict[str, Any] = field(default_factory=dict)
    kind: str = "general"
    subject: str | None = None  # the entity of the user's world it speaks of; None: the user
    subject_kind: str = "user"


class Embedder(Protocol):
    """Turns texts into unit-length vectors (E5-style: passages and queries differ)."""

    @property
    def dim(self) -> int: ...

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]: ...

    def embed_queries(self, texts: Sequence[str]) -> list[list[float]]: ...
