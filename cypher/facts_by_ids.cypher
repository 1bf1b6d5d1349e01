// Facts with their source Messages (for recall items and DataLoaders), scoped by tenant.
// Times as [epochSeconds, microsecond, offsetSeconds] (graph.db.instant).
MATCH (f:Fact) WHERE f.fact_id IN $ids AND f.tenant = $tenant
OPTIONAL MATCH (f)-[:SOURCE]->(m:Message)
WITH f, m ORDER BY m.timestamp
RETURN f {.fact_id, .user_id, .content, .kind, .slot, .value, .polarity, .explicit,
  .confidence, .validity, .status, .labels, .entities, .source_message_ids, .lang,
  .topic, .anchors, .subject, .subject_kind,
  subject_id: head([(f)-[:ABOUT]->(e:Entity) | e.entity_id]),
  time_start: [f.time_start.epochSeconds, f.time_start.microsecond, f.time_start.offsetSeconds],
  time_end: [f.time_end.epochSeconds, f.time_end.microsecond, f.time_end.offsetSeconds],
  created_at: [f.created_at.epochSeconds, f.created_at.microsecond, f.created_at.offsetSeconds]
} AS fact,
  collect(m {.message_id, .user_id, .session_id, .content, .event_type, .role, .page,
    .metadata_json, .lang, .status,
    timestamp: [m.timestamp.epochSeconds, m.timestamp.microsecond, m.timestamp.offsetSeconds]
  }) AS sources
