// Where asked Messages stand in processing (no content): the tenant's, and one user's
// when $user_id is set; an id that is not among them is simply not returned. A failed
// attempt that will be retried leaves a Message `pending` (next_attempt_at set);
// processed_at is when it was processed, or failed for good.
MATCH (m:Message) WHERE m.uid IN $uids AND m.tenant = $tenant
  AND ($user_id IS NULL OR m.user_id = $user_id)
RETURN m.message_id AS message_id, m.user_id AS user_id, m.status AS status,
  m.processed_at AS processed_at, coalesce(m.attempts, 0) AS attempts,
  m.fail_reason AS reason, m.next_attempt_at AS next_attempt_at
