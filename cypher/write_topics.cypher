// Create new Topics and file Facts under them (fact status → chunked).
// A new Topic is created only for Facts still there (not deleted meanwhile).
// Several users at once (a unit of work, graph.fencing.write_fenced): one row of $users per
// user, with its tenant, user_id, scope, uid, its `topics` and `assign`; $now is the
// transaction's.
UNWIND $users AS user
CALL (user) {
  UNWIND user.topics AS t
  WITH user, t WHERE any(a IN user.assign WHERE a.topic = t.name
    AND EXISTS { MATCH (:Fact {fact_id: a.fact_id}) })
  MERGE (n:Topic {topic_id: t.topic_id})
    ON CREATE SET n.tenant = user.tenant, n.user_id = user.user_id, n.name = t.name,
      n.aliases_text = t.aliases_text, n.embedding = t.embedding, n.created_at = $now,
      n.summary_count = 0, n.fact_count = 0, n.scope = user.scope
  RETURN count(*) AS created
}
CALL (user) {
  UNWIND user.assign AS a
  MATCH (f:Fact {fact_id: a.fact_id}) WHERE f.tenant = user.tenant
  SET f.topic = a.topic, f.status = 'chunked'
  RETURN count(f) AS assigned
}
RETURN user.tenant AS tenant, user.user_id AS user_id, assigned
