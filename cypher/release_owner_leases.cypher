// Give back every lease one owner (a process) still holds, its last step at shutdown: a
// lease a cancelled run or a failed release left behind never outlives its process. Each
// User is locked before its owner is read again, as in release_lease, so a claim another
// worker makes meanwhile is never undone.
MATCH (u:User)
WHERE u.lease_owner = $owner
SET u._lock = true
REMOVE u._lock
WITH u
WHERE u.lease_owner = $owner
REMOVE u.lease_owner, u.lease_expires
RETURN count(u) AS released
