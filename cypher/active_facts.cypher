// A user's active Facts, for consolidation.
MATCH (f:Fact)
WHERE f.tenant = $tenant AND f.user_id = $user_id
  AND (f.validity = 'active' OR f.fact_id IN $also)
OPTIONAL MATCH (f)-[:MENTIONS]->(e:Entity)
WITH f, collect(e {.name, .type, .normalized}) AS ents
OPTIONAL MATCH (f)-[:SUPERSEDES]->(old:Fact) WHERE f.topic IS NULL AND old.topic IS NOT NULL
WITH f, ents, head(collect(old.topic)) AS prev_topic
RETURN f {.fact_id, .user_id, .content, .kind, .source_message_ids, .time_start, .time_end,
  .lang, .labels, .slot, .value, .polarity, .explicit, .confidence, .validity,
  .event_types, .key, .session_ids, .anchors, .topic, .status} AS f,
  CASE WHEN f.topic IS NULL THEN f.embedding ELSE null END AS embedding, ents, prev_topic
ORDER BY f.time_end, f.fact_id
