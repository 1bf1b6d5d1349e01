"""The committed schema.graphql is the contract agents code against: no silent drift."""

from __future__ import annotations

from api.schema import build_schema
from core.settings import ROOT, Settings

CONTRACT = {
    "Mutation": ["addMessages", "setMemoryStatus", "boostSummary", "runMaintenance"],
    "Query": ["memory", "topics", "facts", "fact", "summary", "message"],
}


def test_schema_file_matches_code() -> None:
    committed = (ROOT / "schema.graphql").read_text().strip()
    assert build_schema(Settings()).as_str().strip() == committed, (
        "schema drifted: run `make schema` and review the diff"
    )


def test_contract_names_present() -> None:
    sdl = build_schema(Settings()).as_str()
    for names in CONTRACT.values():
        for name in names:
            assert f"  {name}(" in sdl or f"  {name}:" in sdl, name
    for field in (
        "shortTermContext",
        "midTermContext",
        "longTermUserContext",
        "formattedContext",
        "sourceFacts",
        "sourceMessages",
        "memoryStatus",
        "retrievalBoost",
        "decayFactor",
        "eventStart",
        "eventEnd",
        "anchors",
        "evidence",
    ):
        assert field in sdl, field
