// First statement of every write transaction of a processing run: lock the User node
// (the SET), then read its token; the run writes only if no deletion moved it since.
// A deletion bumps the token under the same lock, so the two serialize; so does a worker
// claiming the user's lease (lease_token), so a run whose lease was taken writes nothing.
MATCH (u:User {uid: $user_uid})
SET u._lock = true
REMOVE u._lock
RETURN coalesce(toString(u.created_at), '') + '#' + toString(coalesce(u.generation, 0))
  + '#' + toString(coalesce(u.lease_token, 0)) AS token
