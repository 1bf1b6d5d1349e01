// Provenance of a Summary: its versions, their Facts (and their versions), the Messages.
MATCH (root:Summary {summary_id: $id}) WHERE root.tenant = $tenant
CALL (root) {
  MATCH p = (root)-[:SUPERSEDES*0..20]-(:Summary)
  RETURN collect(p) AS versions
}
CALL (root) {
  MATCH (root)-[:SUPERSEDES*0..20]-(v:Summary)
  MATCH p = (v)<-[:SUPPORTS]-(f:Fact)-[:SOURCE]->(:Message)
  RETURN collect(p) AS support
}
CALL (root) {
  MATCH (root)-[:SUPERSEDES*0..20]-(v:Summary)<-[:SUPPORTS]-(f:Fact)
  MATCH p = (f)-[:SUPERSEDES*1..10]-(:Fact)-[:SOURCE]->(:Message)
  RETURN collect(p) AS fact_versions
}
CALL (root) {
  MATCH p = (root)-[:IN_TOPIC]->(:Topic)
  RETURN collect(p) AS topic
}
RETURN root, versions + support + fact_versions + topic AS paths
