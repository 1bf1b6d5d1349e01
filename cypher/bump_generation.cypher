// A deletion fences in-flight processing of the user: first statement of its transaction.
MATCH (u:User {uid: $user_uid})
SET u._lock = true
REMOVE u._lock
SET u.generation = coalesce(u.generation, 0) + 1
RETURN u.generation AS generation
