// A user's pending Messages that are due (a failed attempt waits out its backoff), oldest first.
MATCH (m:Message)
USING INDEX m:Message(tenant, user_id, status)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.status = 'pending'
  AND (m.next_attempt_at IS NULL OR m.next_attempt_at <= $now)
RETURN m {.message_id, .user_id, .session_id, .role, .content, .timestamp, .event_type,
  .page, .metadata_json, .lang} AS m
ORDER BY m.timestamp, m.message_id
LIMIT $limit
