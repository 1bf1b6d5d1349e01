// A Fact that retracts something ("no longer at the food bank", 不再喝拿铁) supersedes the
// user's older active Facts whose content carries every retracted word, from other Messages.
// Only active Facts are read (the fact_active_time index), never the superseded history.
// Only a Fact about the same subject (the same ABOUT Entity, or both the user's) goes.
// Several users at once (a unit of work, graph.fencing.write_fenced): one row of $users per
// user, with its tenant, user_id, scope, uid and its own rows; $now is the transaction's.
UNWIND $users AS user
CALL (user) {
  UNWIND user.rows AS row
  MATCH (f:Fact {fact_id: row.fact_id})
  WHERE f.tenant = user.tenant AND f.validity = 'active'
  MATCH (old:Fact)
  USING INDEX old:Fact(tenant, user_id, validity, valid_from)
  WHERE old.tenant = user.tenant AND old.user_id = user.user_id AND old.validity = 'active'
    AND old.valid_from <= f.valid_from AND old.fact_id <> f.fact_id
    AND NOT any(s IN old.source_message_ids WHERE s IN f.source_message_ids)
    AND all(w IN row.words WHERE toLower(old.content) CONTAINS toLower(w))
    AND coalesce(head([(old)-[:ABOUT]->(a:Entity) | a.entity_id]), '') =
      coalesce(head([(f)-[:ABOUT]->(b:Entity) | b.entity_id]), '')
  SET old.validity = 'superseded', old.superseded_at = $now, old.valid_to = f.valid_from,
    old.dirty = true
  MERGE (f)-[:SUPERSEDES]->(old)
  RETURN collect(old.fact_id) AS superseded
}
RETURN user.tenant AS tenant, user.user_id AS user_id, superseded
