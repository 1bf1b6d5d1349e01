"""The one label graph/ writes into a query's text (an erasure's sweep, label by label) comes
from the schema's allow-list: anything else is refused before a query is read or built."""

from __future__ import annotations

from typing import Any

import pytest

from core.errors import InputError
from graph import deletion
from graph.nodes import LABELS, NODE_CLASSES, SCHEMA_LABELS

INJECTIONS = [
    "Message) DETACH DELETE (n",
    "Message {tenant: 'other'}) DETACH DELETE (n",
    "Message`",
    "Message:User",
    "message",
    "",
]


def test_the_allow_list_is_the_schemas_labels() -> None:
    assert {c.__label__ for c in NODE_CLASSES} == SCHEMA_LABELS
    assert set(LABELS) <= SCHEMA_LABELS  # every label an erasure sweeps


def test_a_schema_label_is_filled_in() -> None:
    text = deletion.label_query("forget_user_batch", "Message")
    assert "MATCH (n:Message) WHERE n.tenant = $tenant" in text and "{label}" not in text


@pytest.mark.parametrize("label", INJECTIONS)
def test_an_injected_label_is_refused_before_any_query_is_built(
    label: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_query(name: str) -> str:
        raise AssertionError(f"query {name!r} was read for label {label!r}")

    monkeypatch.setattr(deletion, "query", no_query)
    with pytest.raises(InputError) as refused:
        deletion.label_query("forget_user_batch", label)
    assert str(refused.value) == "label: not one of the schema's labels"  # never echoes it


class NoDatabase:
    """A database every call to fails the test: nothing may reach it."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the database was used ({name})")


async def test_the_sweep_refuses_it_before_the_database() -> None:
    with pytest.raises(InputError):
        await deletion._forget_label(NoDatabase(), "t", "u", INJECTIONS[0], 100)  # type: ignore[arg-type]
