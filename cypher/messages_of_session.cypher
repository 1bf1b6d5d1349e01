// One session's Messages of a user in time order (oldest first): the chat history.
MATCH (m:Message) WHERE m.tenant = $tenant AND m.session_id = $session_id
  AND m.user_id = $user_id
RETURN m {.message_id, .user_id, .session_id, .role, .content, .timestamp, .event_type,
  .page, .metadata_json, .lang, .status, .ingested_at} AS message
ORDER BY m.timestamp, m.message_id SKIP $offset LIMIT $limit
