"""How the GraphQL types are built from the service's records: one generic mapping, field by
name (issue 39), so a type names only the fields it shows otherwise."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields
from typing import TypeVar

from strawberry.dataloader import DataLoader

T = TypeVar("T")
R = TypeVar("R")


def shown(value: object) -> object:
    """A record's value as a GraphQL type (or a JSON answer) holds it: tuples as lists."""
    return list(value) if isinstance(value, tuple) else value


def mapped(cls: type[T], *records: object, **given: object) -> T:
    """A `cls` whose every field (not its resolvers) is the `given` value of that name, or
    else the attribute of that name of the first of `records` that has one."""
    values: dict[str, object] = {}
    for f in fields(cls):  # type: ignore[arg-type]  # strawberry types are dataclasses
        if not f.init:  # a resolver
            continue
        if f.name in given:
            values[f.name] = shown(given[f.name])
            continue
        holder = next((r for r in records if hasattr(r, f.name)), None)
        if holder is not None:  # else the field's default
            values[f.name] = shown(getattr(holder, f.name))
    return cls(**values)


async def load_one(
    loader: DataLoader[str, R | None], key: str, build: Callable[[R], T]
) -> T | None:
    """The record `key` loads, built into its GraphQL type; None when there is none."""
    found = await loader.load(key)
    return build(found) if found is not None else None
