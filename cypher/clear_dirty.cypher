// The Facts a consolidation read as touched are consolidated now.
// Several users at once (a unit of work, graph.fencing.write_fenced): one row of $users per
// user, with its tenant, user_id, scope, uid and its own rows; $now is the transaction's.
UNWIND $users AS user
CALL (user) {
  UNWIND user.ids AS id
  MATCH (f:Fact {fact_id: id}) WHERE f.tenant = user.tenant
  REMOVE f.dirty
  RETURN count(f) AS cleared
}
RETURN user.tenant AS tenant, user.user_id AS user_id, cleared
