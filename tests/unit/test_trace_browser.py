"""The Neo4j Browser queries a trace shows (cypher/browser_*.cypher) read as the same text,
byte for byte, as when they were inline strings in graph/trace.py."""

from __future__ import annotations

import pytest

from graph.trace import BROWSER, browser_cypher

# the text graph/trace.py showed before the queries moved to cypher/: people paste it
SHOWN = {
    "Summary": "MATCH p = (s:Summary {summary_id: $id})-[:SUPERSEDES*0..20]-(:Summary)"
    "<-[:SUPPORTS]-(:Fact)-[:SOURCE]->(:Message) RETURN p",
    "Fact": "MATCH p = (f:Fact {fact_id: $id})-[:SUPERSEDES*0..10]-(:Fact)"
    "-[:SOURCE]->(:Message) RETURN p UNION "
    "MATCH p = (f:Fact {fact_id: $id})-[:SUPPORTS]->(:Summary) RETURN p",
    "Message": "MATCH p = (m:Message {message_id: $id})<-[:SOURCE]-(:Fact)"
    "-[:SUPPORTS]->(:Summary)-[:IN_TOPIC]->(:Topic) RETURN p UNION "
    "MATCH p = (m:Message {message_id: $id})<-[:SOURCE]-(:Fact) RETURN p",
}


@pytest.mark.parametrize("kind", sorted(SHOWN))
def test_browser_query_text_is_unchanged(kind: str) -> None:
    assert browser_cypher(kind).encode() == SHOWN[kind].encode()


def test_every_traced_kind_has_a_browser_query() -> None:
    assert set(BROWSER) == set(SHOWN)
    for kind in BROWSER:
        text = browser_cypher(kind)
        assert "$id" in text and "//" not in text and "\n" not in text
