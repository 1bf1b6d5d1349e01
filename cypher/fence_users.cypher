// First statement of every write transaction of processing: lock each User node (the SET),
// in the order given (sorted by the caller: two writers lock Users in one order), then read
// its token; a user's part is written only if no deletion moved it since its run read the
// token. A deletion bumps the token under the same lock, so the two serialize; so does a
// worker claiming the user's lease (lease_token), so a run whose lease was taken writes
// nothing. A User that is gone returns no row: its part is fenced.
UNWIND $uids AS uid
MATCH (u:User {uid: uid})
SET u._lock = true
REMOVE u._lock
RETURN uid, coalesce(toString(u.created_at), '') + '#' + toString(coalesce(u.generation, 0))
  + '#' + toString(coalesce(u.lease_token, 0)) AS token
