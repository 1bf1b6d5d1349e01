"""The schema the node classes declare, and which rules in place the migration renames."""

from __future__ import annotations

from graph.schema import Existing, Rule, declared_cypher_indexes, declared_rules, renames


def _rule(name: str, label: str, props: tuple[str, ...], kind: str = "index") -> Existing:
    if kind == "constraint":
        return Existing("constraint", 1, name, "UNIQUENESS", (label,), props, "ONLINE")
    return Existing("index", 1, name, kind, (label,), props, "ONLINE")


def test_declared_rules_use_neomodels_names() -> None:
    rules = {r.name: r for r in declared_rules()}
    assert rules["constraint_unique_Message_uid"] == Rule(
        "constraint", "Message", "uid", "constraint_unique_Message_uid"
    )
    assert rules["index_Message_status"] == Rule(
        "index", "Message", "status", "index_Message_status"
    )
    # what schema.cypher creates is not declared twice
    assert not set(rules) & declared_cypher_indexes()
    assert {"message_scope", "fact_text", "summary_text", "message_search"} <= (
        declared_cypher_indexes()
    )


def test_only_an_equivalent_rule_under_another_name_is_renamed() -> None:
    existing = [
        _rule("message_uid", "Message", ("uid",), "constraint"),  # old name: renamed
        _rule("message_status", "Message", ("status",), "RANGE"),  # old name: renamed
        _rule("constraint_unique_Fact_fact_id", "Fact", ("fact_id",), "constraint"),  # as declared
        _rule("message_scope", "Message", ("tenant", "user_id"), "RANGE"),  # composite
        _rule("fact_text", "Fact", ("content", "scope"), "FULLTEXT"),
        _rule("message_text", "Message", ("uid",), "FULLTEXT"),  # not a range index
    ]
    got = {(old.name, new.name) for old, new in renames(declared_rules(), existing)}
    assert got == {
        ("message_uid", "constraint_unique_Message_uid"),
        ("message_status", "index_Message_status"),
    }
