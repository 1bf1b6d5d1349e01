// The user's fencing token, read by a processing run before it reads pending Messages.
// It changes on every deletion (generation) and when the User is re-created (created_at).
MATCH (u:User {uid: $user_uid})
RETURN coalesce(toString(u.created_at), '') + '#' + toString(coalesce(u.generation, 0))
  AS token
