// A user's behaviour events (any status) in a time window: the evidence to aggregate.
MATCH (m:Message)
USING INDEX m:Message(tenant, user_id, timestamp)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.event_type <> 'message'
  AND m.timestamp >= $since AND m.timestamp <= $until
RETURN m {.message_id, .user_id, .session_id, .role, .content, .timestamp, .event_type,
  .page, .metadata_json, .lang} AS m
ORDER BY m.timestamp, m.message_id
