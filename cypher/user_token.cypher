// The user's fencing token, read by a processing run before it reads pending Messages.
// It changes on every deletion (generation), when the User is re-created (created_at) and
// when a worker claims the user's processing lease (lease_token).
MATCH (u:User {uid: $user_uid})
RETURN coalesce(toString(u.created_at), '') + '#' + toString(coalesce(u.generation, 0))
  + '#' + toString(coalesce(u.lease_token, 0)) AS token
