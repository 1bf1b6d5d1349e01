// Processing failed for these Messages: keep them, say why (an error kind, no content).
MATCH (m:Message) WHERE m.uid IN $uids AND m.status = 'pending'
SET m.status = 'failed', m.fail_reason = $reason, m.processed_at = $now
RETURN count(m) AS n
