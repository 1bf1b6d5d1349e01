// Shown to people, not run by GUMem: a Summary's provenance in Neo4j Browser, pasted after
// `:param id => "<id>"` (graph/trace.py). Loaded by graph.queries.shown_query: comment
// lines left out, the other lines joined by one space.
MATCH p = (s:Summary {summary_id: $id})-[:SUPERSEDES*0..20]-(:Summary)<-[:SUPPORTS]-(:Fact)-[:SOURCE]->(:Message)
RETURN p
