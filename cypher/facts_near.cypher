// The filed active Facts that can vote on the Topic of new ones
// (consolidation/topic_filing.py `_closeness`): from one of their sessions (a
// correction's counting those of the facts it supersedes), on a slot of one of their
// families among the user's $recent latest Facts, or within the context window of one of
// their time spans ($spans). Bounded by the batch: every branch starts from an index
// seek, and none reads more of a long-lived goal than its latest Facts.
// Times as [epochSeconds, microsecond, offsetSeconds] (graph.db.instant, cheap to decode);
// lists compare element by element, so they order as the instants do.
CALL () {
  MATCH (m:Message)
  WHERE m.tenant = $tenant AND m.session_id IN $sessions
  MATCH (f:Fact)-[:SOURCE]->(m)
  RETURN f
  UNION
  MATCH (m:Message)
  WHERE m.tenant = $tenant AND m.session_id IN $sessions
  MATCH (f:Fact)-[:SUPERSEDES]->(:Fact)-[:SOURCE]->(m)
  RETURN f
  UNION
  MATCH (f:Fact)
  USING INDEX f:Fact(tenant, user_id, time_end)
  WHERE f.tenant = $tenant AND f.user_id = $user_id AND f.time_end IS NOT NULL
  WITH f ORDER BY f.tenant DESC, f.user_id DESC, f.time_end DESC LIMIT $recent
  WITH f WHERE f.slot IS NOT NULL AND toLower(trim(split(f.slot, ':')[0])) IN $families
  RETURN f
  UNION
  UNWIND $spans AS span
  MATCH (f:Fact)
  USING INDEX f:Fact(tenant, user_id, time_end)
  WHERE f.tenant = $tenant AND f.user_id = $user_id AND f.time_end >= span.since
    AND f.time_start <= span.until
  RETURN f
}
WITH f WHERE f.user_id = $user_id AND f.tenant = $tenant AND f.validity = 'active'
  AND f.topic IS NOT NULL
OPTIONAL MATCH (f)-[:MENTIONS]->(e:Entity)
WITH f, collect(e {.name, .type, .normalized}) AS ents
OPTIONAL MATCH (f)-[:SUPERSEDES]->(old:Fact)
WITH f, ents, reduce(acc = [], s IN collect(old.session_ids) | acc + s) AS old_sessions
RETURN f {.fact_id, .user_id, .content, .kind, .source_message_ids,
  time_start: [f.time_start.epochSeconds, f.time_start.microsecond, f.time_start.offsetSeconds],
  time_end: [f.time_end.epochSeconds, f.time_end.microsecond, f.time_end.offsetSeconds],
  .lang, .labels, .slot, .value, .polarity, .explicit, .confidence, .validity,
  .event_types, .key, .anchors, .topic, .status, .subject, .subject_kind,
  session_ids: f.session_ids + [s IN old_sessions WHERE NOT s IN f.session_ids]} AS f,
  null AS embedding, ents, null AS prev_topic
ORDER BY f.time_end, f.fact_id
