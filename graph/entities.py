"""The user's world as Entity nodes: what a Fact is about when it is not the user.

A Fact's subject ("舅舅", "室友小陈", "father", "读书会") is one `(:Entity {world: true})` per
user and key (the subject lower-cased, whitespace folded), with the names it goes by
(`aliases`: the name and every alias a draft brought) and their match forms (`terms`),
which recall compares with the words of a query. The spaCy entities a Fact `MENTIONS`
share the label and stay as they were (no `world`, a NER `type`)."""

from __future__ import annotations

import re
from typing import Any

from extract.types import FactDraft
from graph.ids import stable_id

# a run of CJK characters, or a run of other word characters: a query's words and an
# alias's are compared in this form (CJK has no spaces; Latin words match whole)
_RUNS = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+|[^\W\u3400-\u9fff\uf900-\ufaff]+")


def subject_key(name: str) -> str:
    """An Entity's key within its user: the name lower-cased, whitespace folded."""
    return " ".join(name.lower().split())


def match_form(text: str) -> str:
    """`text` as recall compares names: its word runs lower-cased, one space between them."""
    return " ".join(_RUNS.findall(text.lower()))


def query_form(text: str) -> str:
    """A query's match form padded with spaces, so a Latin term matches whole words only
    (`" dad "` in `" dinner with my dad "`, not in `" daddy "`)."""
    return f" {match_form(text)} "


def world_entity_id(tenant: str, user_id: str, key: str) -> str:
    return stable_id("w", tenant, user_id, key)


def display(name: str) -> str:
    return " ".join(name.split())


def subject_kind(d: FactDraft) -> str:
    """The kind of what a draft is about: "user", or its subject's kind ("thing" if unsaid)."""
    if d.subject is None:
        return "user"
    return d.subject_kind if d.subject_kind not in ("", "user") else "thing"


def _name_words(names: list[str]) -> list[str]:
    """The capitalised Latin words of a person's names (a given name, a family name)."""
    return [w.lower() for n in names for w in n.split() if len(w) >= 3 and w.istitle()]


def subject_row(
    tenant: str, user_id: str, d: FactDraft, parts: tuple[FactDraft, ...] = ()
) -> dict[str, Any] | None:
    """The Entity a draft is about, as cypher/write_facts.cypher merges it (None: the user):
    its name, and the aliases of every part (the drafts merged into it) on the same key."""
    if d.subject is None or not subject_key(d.subject):
        return None
    key = subject_key(d.subject)
    same = [p for p in (d, *parts) if p.subject is not None and subject_key(p.subject) == key]
    given = [d.subject, *(n for p in same for n in (p.subject or "", *p.subject_aliases))]
    names = list(dict.fromkeys(display(n) for n in given if n.strip()))
    terms = list(dict.fromkeys(t for n in names if (t := match_form(n))))
    if subject_kind(d) == "person":  # "Ruth Penhale" is also found as "Ruth"
        terms += [t for t in dict.fromkeys(_name_words(names)) if t not in terms]
    return {
        "entity_id": world_entity_id(tenant, user_id, key),
        "key": key,
        "term": match_form(key),
        "name": display(d.subject),
        "kind": subject_kind(d),
        "aliases": names,
        "terms": terms,
    }
