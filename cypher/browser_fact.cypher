// Shown to people, not run by GUMem: a Fact's provenance in Neo4j Browser, pasted after
// `:param id => "<id>"` (graph/trace.py). Loaded by graph.queries.shown_query: comment
// lines left out, the other lines joined by one space.
MATCH p = (f:Fact {fact_id: $id})-[:SUPERSEDES*0..10]-(:Fact)-[:SOURCE]->(:Message) RETURN p
UNION
MATCH p = (f:Fact {fact_id: $id})-[:SUPPORTS]->(:Summary) RETURN p
