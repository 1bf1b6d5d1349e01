// Extend a lease its owner still holds (same token); nothing if another worker took it.
MATCH (u:User {uid: $user_uid})
SET u._lock = true
REMOVE u._lock
WITH u
WHERE u.lease_owner = $owner AND u.lease_token = $lease
SET u.lease_expires = $now + duration({milliseconds: $ttl_ms})
RETURN u.lease_token AS lease
