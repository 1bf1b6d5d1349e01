// What came from a Message: its Facts, their versions, and the Summaries they support.
// Each part keeps at most $max_paths + 1 paths (one more than shown tells it was cut).
MATCH (root:Message {uid: $uid}) WHERE root.tenant = $tenant
CALL (root) {
  MATCH p = (root)<-[:SOURCE]-(:Fact)-[:SUPERSEDES*0..10]-(:Fact)
  WITH p LIMIT $max_paths + 1
  RETURN collect(p) AS facts
}
CALL (root) {
  MATCH p = (root)<-[:SOURCE]-(:Fact)-[:SUPPORTS]->(:Summary)-[:IN_TOPIC]->(:Topic)
  WITH p LIMIT $max_paths + 1
  RETURN collect(p) AS summaries
}
CALL (root) {
  MATCH p = (root)-[:IN_SESSION]->(:Session)
  WITH p LIMIT $max_paths + 1
  RETURN collect(p) AS session
}
RETURN root, [facts, summaries, session] AS parts
