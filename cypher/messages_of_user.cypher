// A user's Messages in time order (oldest first), for chat history and browsing.
MATCH (m:Message) WHERE m.tenant = $tenant AND m.user_id = $user_id
RETURN m {.message_id, .user_id, .session_id, .role, .content, .timestamp, .event_type,
  .page, .metadata_json, .lang, .status, .ingested_at} AS message
ORDER BY m.timestamp, m.message_id SKIP $offset LIMIT $limit
