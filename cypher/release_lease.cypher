// Give a lease back (its owner, same token): another worker may claim the user at once.
// The token stays: the next claim raises it.
MATCH (u:User {uid: $user_uid})
SET u._lock = true
REMOVE u._lock
WITH u
WHERE u.lease_owner = $owner AND u.lease_token = $lease
REMOVE u.lease_owner, u.lease_expires
RETURN u.lease_token AS lease
