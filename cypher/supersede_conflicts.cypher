// A Fact that replaces an older one with no slot in common (an implicit conflict found by
// corrections/conflicts.py) supersedes it: kept for audit, linked by SUPERSEDES,
// valid_to set.
// Only a Fact about the same subject (the same ABOUT Entity, or both the user's) goes.
// Several users at once (a unit of work, graph.fencing.write_fenced): one row of $users per
// user, with its tenant, user_id, scope, uid and its own rows; $now is the transaction's.
UNWIND $users AS user
CALL (user) {
  UNWIND user.rows AS row
  MATCH (f:Fact {fact_id: row.fact_id})
  WHERE f.tenant = user.tenant AND f.user_id = user.user_id AND f.validity = 'active'
  MATCH (old:Fact {fact_id: row.old_id})
  WHERE old.tenant = user.tenant AND old.user_id = user.user_id AND old.validity = 'active'
    AND old.fact_id <> f.fact_id
    AND coalesce(old.valid_from, old.time_start) <= f.valid_from
    AND coalesce(head([(old)-[:ABOUT]->(a:Entity) | a.entity_id]), '') =
      coalesce(head([(f)-[:ABOUT]->(b:Entity) | b.entity_id]), '')
  SET old.validity = 'superseded', old.superseded_at = $now, old.valid_to = f.valid_from,
    old.dirty = true
  MERGE (f)-[:SUPERSEDES]->(old)
  RETURN collect(old.fact_id) AS superseded
}
RETURN user.tenant AS tenant, user.user_id AS user_id, superseded
