// Give leases back (their owner, same token), one row per user: another worker may claim
// the user at once. The token stays: the next claim raises it.
UNWIND $rows AS row
MATCH (u:User {uid: row.uid})
SET u._lock = true
REMOVE u._lock
WITH u, row
WHERE u.lease_owner = $owner AND u.lease_token = row.lease
REMOVE u.lease_owner, u.lease_expires
RETURN u.uid AS uid
