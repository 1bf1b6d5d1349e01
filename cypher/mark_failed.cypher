// A failed attempt per Message: count it, say why (an error kind, never content), and
// retry after $delays[attempts - 1], or stay 'failed' once $max_attempts are spent.
UNWIND $rows AS row
MATCH (m:Message {uid: row.uid}) WHERE m.status = 'pending'
WITH m, row, coalesce(m.attempts, 0) + 1 AS attempts
SET m.attempts = attempts, m.fail_reason = row.reason, m.last_attempt_at = $now,
    m.status = CASE WHEN attempts >= $max_attempts THEN 'failed' ELSE 'pending' END,
    m.next_attempt_at = CASE WHEN attempts >= $max_attempts THEN null
      ELSE $now + duration({milliseconds: $delays[attempts - 1]}) END,
    m.processed_at = CASE WHEN attempts >= $max_attempts THEN $now ELSE m.processed_at END
RETURN count(m) AS n
