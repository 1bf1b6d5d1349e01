MATCH (s:Summary) WHERE s.summary_id IN $ids AND s.tenant = $tenant
OPTIONAL MATCH (s)-[:MENTIONS]->(e:Entity)
WITH s, collect(e {.name, .type, .normalized}) AS entities
OPTIONAL MATCH (s)-[:SUPERSEDES]->(prev:Summary)
WITH s, entities, collect(prev.summary_id) AS supersedes
OPTIONAL MATCH (next:Summary)-[:SUPERSEDES]->(s)
WITH s, entities, supersedes, collect(next.summary_id) AS superseded_by
RETURN s {.summary_id, .user_id, .content, .topic, .kind, .source_facts, .confidence,
  .event_start, .event_end, .labels, .decay_factor, .validity, .memory_status,
  .retrieval_boost, .evidence_json, .anchors, .created_at, .updated_at, .version, .lang,
  entities: entities, supersedes: supersedes, superseded_by: superseded_by} AS summary
