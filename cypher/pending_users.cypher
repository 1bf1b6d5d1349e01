// The worker's queue, oldest first: users with Messages due (a failed attempt waits out its
// backoff), and users whose Facts were written but not consolidated (a crash or a cut
// between the transactions).
CALL () {
  MATCH (m:Message) WHERE m.status = 'pending'
    AND (m.next_attempt_at IS NULL OR m.next_attempt_at <= $now)
  RETURN m.tenant AS tenant, m.user_id AS user_id, min(m.ingested_at) AS since
  UNION
  MATCH (u:User) WHERE u.unconsolidated_at IS NOT NULL
  RETURN u.tenant AS tenant, u.user_id AS user_id, u.unconsolidated_at AS since
}
WITH tenant, user_id, min(since) AS since
// with $owner: not the users another worker holds a live lease on
OPTIONAL MATCH (u:User {uid: tenant + '|' + user_id})
WITH tenant, user_id, since, u
WHERE $owner IS NULL OR u IS NULL OR u.lease_owner IS NULL OR u.lease_owner = $owner
  OR u.lease_expires IS NULL OR u.lease_expires < $now
RETURN tenant, user_id ORDER BY since LIMIT $limit
