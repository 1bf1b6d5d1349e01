// The Topics' counts: those in a user's `topics`, or all of the user's (`topics` null).
// Several users at once (a unit of work, graph.fencing.write_fenced): one row of $users per
// user, with its tenant, user_id, scope, uid and its own rows; $now is the transaction's.
UNWIND $users AS user
CALL (user) {
  MATCH (t:Topic) WHERE t.tenant = user.tenant AND t.user_id = user.user_id
    AND (user.topics IS NULL OR t.name IN user.topics)
  OPTIONAL MATCH (s:Summary)-[:IN_TOPIC]->(t) WHERE s.validity = 'active'
  WITH user, t, count(s) AS summaries
  OPTIONAL MATCH (f:Fact) USING INDEX f:Fact(tenant, user_id, topic) WHERE f.tenant = user.tenant AND f.user_id = user.user_id
    AND f.topic = t.name AND f.validity = 'active'
  WITH t, summaries, count(f) AS facts
  SET t.summary_count = summaries, t.fact_count = facts
  RETURN count(t) AS topics
}
RETURN user.tenant AS tenant, user.user_id AS user_id, topics
