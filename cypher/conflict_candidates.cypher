// A user's active Facts with their embeddings and entities: the older Facts a correction
// may replace.
MATCH (f:Fact)
WHERE f.tenant = $tenant AND f.user_id = $user_id AND f.validity = 'active'
  AND f.embedding IS NOT NULL
WITH f ORDER BY coalesce(f.valid_from, f.time_start) DESC LIMIT $limit
OPTIONAL MATCH (f)-[:MENTIONS]->(e:Entity)
WITH f, collect(e {.name, .type}) AS ents
RETURN f.fact_id AS fact_id, f.content AS content, f.kind AS kind,
  coalesce(f.polarity, 'neutral') AS polarity, f.slot AS slot,
  coalesce(f.valid_from, f.time_start) AS valid_from, f.embedding AS embedding,
  coalesce(f.source_message_ids, []) AS sources, ents
