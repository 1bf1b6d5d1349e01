// Extend the leases their owner still holds (same token), one row per user: nothing for
// one another worker took. Returns the users whose lease was extended.
UNWIND $rows AS row
MATCH (u:User {uid: row.uid})
SET u._lock = true
REMOVE u._lock
WITH u, row
WHERE u.lease_owner = $owner AND u.lease_token = row.lease
SET u.lease_expires = $now + duration({milliseconds: $ttl_ms})
RETURN u.uid AS uid
