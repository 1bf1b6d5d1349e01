// A change in the user's life that ends a thing ("our dog passed away", 车卖了: found by
// corrections/endings.py) retires the user's older active Facts naming the thing:
// superseded by the life change (kept for audit, SUPERSEDES, valid_to), never deleted. A
// past event (kind timeline) stays true and stays active. Latin words match whole words
// (plurals too) by a row's pattern; Chinese ones as substrings; a kind the user no longer has
// any of ("no pets any more": a row's kind) retires the Facts about subjects of that kind.
// Only active Facts are read (fact_active_time).
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
    AND coalesce(old.kind, '') <> 'timeline'
    AND NOT any(s IN old.source_message_ids WHERE s IN f.source_message_ids)
    AND CASE WHEN row.kind IS NOT NULL THEN old.subject_kind = row.kind
      WHEN row.pattern IS NULL THEN old.content CONTAINS row.word
      ELSE old.content =~ row.pattern END
  SET old.validity = 'superseded', old.superseded_at = $now, old.valid_to = f.valid_from,
    old.dirty = true
  MERGE (f)-[:SUPERSEDES]->(old)
  RETURN collect(old.fact_id) AS superseded
}
RETURN user.tenant AS tenant, user.user_id AS user_id, superseded
