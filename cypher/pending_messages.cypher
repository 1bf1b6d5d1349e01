// A user's pending Messages that are due (a failed attempt waits out its backoff), oldest first.
// Times as [epochSeconds, microsecond, offsetSeconds] (graph.db.instant, cheap to decode);
// lists compare element by element, so they order as the instants do.
MATCH (m:Message)
USING INDEX m:Message(tenant, user_id, status)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.status = 'pending'
  AND (m.next_attempt_at IS NULL OR m.next_attempt_at <= $now)
RETURN m {.message_id, .user_id, .session_id, .role, .content, .event_type, .page,
  .metadata_json, .lang,
  timestamp: [m.timestamp.epochSeconds, m.timestamp.microsecond, m.timestamp.offsetSeconds]} AS m
ORDER BY m.timestamp, m.message_id
LIMIT $limit
