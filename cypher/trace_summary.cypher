// Provenance of a Summary: its versions, their Facts (and their versions), the Messages.
// Each part keeps at most $max_paths + 1 paths (one more than shown tells it was cut).
MATCH (root:Summary {summary_id: $id}) WHERE root.tenant = $tenant
CALL (root) {
  MATCH p = (root)-[:SUPERSEDES*0..20]-(:Summary)
  WITH p LIMIT $max_paths + 1
  RETURN collect(p) AS versions
}
CALL (root) {
  MATCH (root)-[:SUPERSEDES*0..20]-(v:Summary)
  WITH DISTINCT v LIMIT $max_paths + 1
  MATCH p = (v)<-[:SUPPORTS]-(f:Fact)-[:SOURCE]->(:Message)
  WITH p LIMIT $max_paths + 1
  RETURN collect(p) AS support
}
CALL (root) {
  MATCH (root)-[:SUPERSEDES*0..20]-(v:Summary)
  WITH DISTINCT v LIMIT $max_paths + 1
  MATCH (v)<-[:SUPPORTS]-(f:Fact)
  WITH DISTINCT f LIMIT $max_paths + 1
  MATCH p = (f)-[:SUPERSEDES*1..10]-(:Fact)-[:SOURCE]->(:Message)
  WITH p LIMIT $max_paths + 1
  RETURN collect(p) AS fact_versions
}
CALL (root) {
  MATCH p = (root)-[:IN_TOPIC]->(:Topic)
  WITH p LIMIT $max_paths + 1
  RETURN collect(p) AS topic
}
RETURN root, [versions, support, fact_versions, topic] AS parts
