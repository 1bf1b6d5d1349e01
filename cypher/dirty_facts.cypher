// The Facts a batch touched since the user's last consolidation (`dirty`: written,
// re-merged or superseded): unfiled active ones are filed, and the Topics of all of them
// are re-planned. Found by the fact_dirty index, never by scanning the user's history.
// Times as [epochSeconds, microsecond, offsetSeconds] (graph.db.instant, cheap to decode);
// lists compare element by element, so they order as the instants do.
MATCH (f:Fact)
USING INDEX f:Fact(tenant, user_id, dirty)
WHERE f.tenant = $tenant AND f.user_id = $user_id AND f.dirty = true
OPTIONAL MATCH (f)-[:MENTIONS]->(e:Entity)
WITH f, collect(e {.name, .type, .normalized}) AS ents
OPTIONAL MATCH (f)-[:SUPERSEDES]->(old:Fact)
WITH f, ents, [t IN collect(old.topic) WHERE t IS NOT NULL] AS old_topics,
  reduce(acc = [], s IN collect(old.session_ids) | acc + s) AS old_sessions
RETURN f {.fact_id, .user_id, .content, .kind, .source_message_ids,
  time_start: [f.time_start.epochSeconds, f.time_start.microsecond, f.time_start.offsetSeconds],
  time_end: [f.time_end.epochSeconds, f.time_end.microsecond, f.time_end.offsetSeconds],
  .lang, .labels, .slot, .value, .polarity, .explicit, .confidence, .validity,
  .event_types, .key, .anchors, .topic, .status, .subject, .subject_kind,
  session_ids: f.session_ids + [s IN old_sessions WHERE NOT s IN f.session_ids]} AS f,
  CASE WHEN f.topic IS NULL THEN f.embedding ELSE null END AS embedding, ents,
  CASE WHEN f.topic IS NULL THEN head(old_topics) END AS prev_topic
ORDER BY f.time_end, f.fact_id
