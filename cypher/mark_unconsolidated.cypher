// New Facts of this user wait for consolidation; cleared when it is written, so the worker
// finishes it after a crash or a cut between the two transactions.
MATCH (u:User {uid: $user_uid})
SET u.unconsolidated_at = $now
