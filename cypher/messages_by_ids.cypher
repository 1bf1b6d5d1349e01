MATCH (m:Message) WHERE m.uid IN $uids AND m.tenant = $tenant
RETURN m {.message_id, .user_id, .session_id, .role, .content, .timestamp, .event_type,
  .page, .metadata_json, .lang, .status, .ingested_at} AS message
