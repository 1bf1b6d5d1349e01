// What came from a Message: its Facts, their versions, and the Summaries they support.
MATCH (root:Message {uid: $uid}) WHERE root.tenant = $tenant
CALL (root) {
  MATCH p = (root)<-[:SOURCE]-(:Fact)-[:SUPERSEDES*0..10]-(:Fact)
  RETURN collect(p) AS facts
}
CALL (root) {
  MATCH p = (root)<-[:SOURCE]-(:Fact)-[:SUPPORTS]->(:Summary)-[:IN_TOPIC]->(:Topic)
  RETURN collect(p) AS summaries
}
CALL (root) {
  MATCH p = (root)-[:IN_SESSION]->(:Session)
  RETURN collect(p) AS session
}
RETURN root, facts + summaries + session AS paths
