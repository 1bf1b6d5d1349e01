// Whether this user has Facts written and not yet consolidated.
OPTIONAL MATCH (u:User {uid: $user_uid})
RETURN u.unconsolidated_at IS NOT NULL AS due
