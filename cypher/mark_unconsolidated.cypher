// New Facts of these users wait for consolidation; cleared when it is written, so the worker
// finishes it after a crash or a cut between the two transactions. One row of $users per
// user (its uid).
UNWIND $users AS user
MATCH (u:User {uid: user.uid})
SET u.unconsolidated_at = $now
RETURN user.tenant AS tenant, user.user_id AS user_id
