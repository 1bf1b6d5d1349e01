// Claim users' processing leases (issue 19), one row per user, in the order given (sorted
// by the caller, so two claims lock the same Users in the same order): one owner at a time
// processes a user, on any number of machines. Each User is locked first (the SET), then its
// lease read under the lock, so two claims serialize. Free or expired: taken, and the
// fencing token (`lease_token`, part of the user's token that every write of a run checks)
// goes up, so a former owner's late writes are refused. The owner's own live lease is only
// extended. Returns the users claimed.
UNWIND $user_uids AS uid
MATCH (u:User {uid: uid})
SET u._lock = true
REMOVE u._lock
WITH u
WHERE u.lease_owner IS NULL OR u.lease_expires IS NULL OR u.lease_expires < $now
  OR u.lease_owner = $owner
WITH u, u.lease_owner = $owner AND u.lease_expires >= $now AS mine
SET u.lease_token = CASE WHEN mine THEN u.lease_token ELSE coalesce(u.lease_token, 0) + 1 END,
  u.lease_owner = $owner,
  u.lease_expires = $now + duration({milliseconds: $ttl_ms})
RETURN u.uid AS uid, u.lease_token AS lease
