// Re-queue every failed Message of one user: pending again, attempts from zero.
MATCH (m:Message)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.status = 'failed'
SET m.status = 'pending', m.attempts = 0, m.next_attempt_at = null
RETURN count(m) AS n
