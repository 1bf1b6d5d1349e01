"""api/mapping.py: a GraphQL type is built from a service record field by name."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
import strawberry

from api.mapping import mapped


@strawberry.type
class Shown:
    id: str
    names: list[str]
    note: str | None = None


@dataclass(frozen=True)
class Record:
    id: str
    names: tuple[str, ...]
    note: str | None
    hidden: int = 0


def test_fields_come_by_name_tuples_as_lists_and_given_values_win() -> None:
    r = Record("a", ("x", "y"), "kept")
    shown = mapped(Shown, r)
    assert (shown.id, shown.names, shown.note) == ("a", ["x", "y"], "kept")
    assert mapped(Shown, r, note=None).note is None


def test_a_required_field_no_record_has_fails() -> None:
    @dataclass(frozen=True)
    class Renamed:
        ident: str
        names: tuple[str, ...]

    with pytest.raises(TypeError):
        mapped(Shown, Renamed("a", ()))
