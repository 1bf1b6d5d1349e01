// Provenance of a Fact: its Messages, its versions (SUPERSEDES), the Summaries it supports.
// Each part keeps at most $max_paths + 1 paths (one more than shown tells it was cut).
MATCH (root:Fact {fact_id: $id}) WHERE root.tenant = $tenant
CALL (root) {
  MATCH p = (root)-[:SUPERSEDES*0..10]-(:Fact)-[:SOURCE]->(:Message)
  WITH p LIMIT $max_paths + 1
  RETURN collect(p) AS sources
}
CALL (root) {
  MATCH p = (root)-[:SUPPORTS]->(:Summary)-[:IN_TOPIC]->(:Topic)
  WITH p LIMIT $max_paths + 1
  RETURN collect(p) AS summaries
}
RETURN root, [sources, summaries] AS parts
