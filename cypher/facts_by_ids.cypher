// Facts with their source Messages (for recall items and DataLoaders), scoped by tenant.
MATCH (f:Fact) WHERE f.fact_id IN $ids AND f.tenant = $tenant
OPTIONAL MATCH (f)-[:SOURCE]->(m:Message)
WITH f, m ORDER BY m.timestamp
RETURN f {.fact_id, .user_id, .content, .kind, .slot, .value, .polarity, .explicit,
  .confidence, .validity, .status, .labels, .entities, .source_message_ids, .time_start,
  .time_end, .created_at, .lang, .topic, .anchors} AS fact,
  collect(m {.message_id, .user_id, .session_id, .content, .timestamp, .event_type, .role,
    .page, .metadata_json, .lang, .status}) AS sources
