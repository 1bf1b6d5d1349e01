// Consolidation that started at $started covered every Fact written before it.
MATCH (u:User {uid: $user_uid})
WHERE u.unconsolidated_at <= $started
REMOVE u.unconsolidated_at
