// Old versions become deprecated (kept for audit); the successor points at them.
// Several users at once (a unit of work, graph.fencing.write_fenced): one row of $users per
// user, with its tenant, user_id, scope, uid and its own rows; $now is the transaction's.
UNWIND $users AS user
CALL (user) {
  UNWIND user.retire AS r
  MATCH (old:Summary {summary_id: r.summary_id}) WHERE old.tenant = user.tenant
  SET old.validity = 'deprecated', old.updated_at = $now
  WITH old, r
  OPTIONAL MATCH (new:Summary {summary_id: r.successor})
  FOREACH (n IN CASE WHEN new IS NULL THEN [] ELSE [new] END | MERGE (n)-[:SUPERSEDES]->(old))
  RETURN count(old) AS retired
}
RETURN user.tenant AS tenant, user.user_id AS user_id, retired
