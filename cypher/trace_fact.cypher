// Provenance of a Fact: its Messages, its versions (SUPERSEDES), the Summaries it supports.
MATCH (root:Fact {fact_id: $id}) WHERE root.tenant = $tenant
CALL (root) {
  MATCH p = (root)-[:SUPERSEDES*0..10]-(:Fact)-[:SOURCE]->(:Message)
  RETURN collect(p) AS sources
}
CALL (root) {
  MATCH p = (root)-[:SUPPORTS]->(:Summary)-[:IN_TOPIC]->(:Topic)
  RETURN collect(p) AS summaries
}
RETURN root, sources + summaries AS paths
