// The active Facts filed under some of a user's Topics (plus the ids in $also, e.g. facts
// a deletion will restore): what the Summaries of those Topics are planned from. A
// correction also counts the sessions of the facts it supersedes as its own.
// Times as [epochSeconds, microsecond, offsetSeconds] (graph.db.instant, cheap to decode);
// lists compare element by element, so they order as the instants do.
CALL () {
  MATCH (f:Fact)
  USING INDEX f:Fact(tenant, user_id, topic)
  WHERE f.tenant = $tenant AND f.user_id = $user_id AND f.topic IN $topics
    AND f.validity = 'active'
  RETURN f
  UNION
  MATCH (f:Fact)
  WHERE f.fact_id IN $also AND f.tenant = $tenant AND f.user_id = $user_id
  RETURN f
}
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
