// A tenant's failed Messages (one user's, or every user's when $user_id is null), newest
// attempt first: why, how often, when. No content.
MATCH (m:Message)
WHERE m.status = 'failed' AND m.tenant = $tenant
  AND ($user_id IS NULL OR m.user_id = $user_id)
RETURN m.message_id AS message_id, m.user_id AS user_id, m.session_id AS session_id,
  m.fail_reason AS reason, coalesce(m.attempts, 1) AS attempts,
  m.last_attempt_at AS last_attempt_at, m.timestamp AS timestamp
ORDER BY m.last_attempt_at DESC, m.message_id
SKIP $offset LIMIT $limit
