// Re-queue failed Messages of one tenant (these ids): pending again, attempts from zero.
MATCH (m:Message)
WHERE m.uid IN $uids AND m.tenant = $tenant AND m.status = 'failed'
SET m.status = 'pending', m.attempts = 0, m.next_attempt_at = null
RETURN m.user_id AS user_id, count(m) AS n
