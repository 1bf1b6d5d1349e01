// The current Summaries a batch's consolidation plans again (incremental): those a dirty
// Fact ($dirty) supports, those of the batch's sessions ($sessions), and the latest
// $recent of each touched Topic (where a new Fact may join a young group). Each branch
// starts from an index seek and is bounded by the batch, never by the Topic's history;
// a Summary outside them stays as it is. Their facts' slots come along, as in
// active_summaries.cypher.
CALL () {
  MATCH (f:Fact)-[:SUPPORTS]->(s:Summary)
  WHERE f.fact_id IN $dirty
  RETURN s
  UNION
  MATCH (m:Message)
  WHERE m.tenant = $tenant AND m.session_id IN $sessions
  MATCH (f:Fact)-[:SOURCE]->(m)
  MATCH (f)-[:SUPPORTS]->(s:Summary)
  RETURN s
  UNION
  UNWIND $topics AS topic
  CALL (topic) {
    MATCH (s:Summary)
    USING INDEX s:Summary(tenant, user_id, topic, event_end)
    WHERE s.tenant = $tenant AND s.user_id = $user_id AND s.topic = topic
      AND s.event_end IS NOT NULL AND s.validity = 'active'
    WITH s
    ORDER BY s.tenant DESC, s.user_id DESC, s.topic DESC, s.event_end DESC
    LIMIT $recent
    RETURN s
  }
  RETURN s
}
WITH DISTINCT s
WHERE s.tenant = $tenant AND s.user_id = $user_id AND s.validity = 'active'
  AND s.topic IN $topics
OPTIONAL MATCH (f:Fact)-[:SUPPORTS]->(s)
RETURN s.summary_id AS summary_id, s.key AS key, s.content AS content, s.topic AS topic,
  s.source_facts AS source_facts, s.version AS version,
  [x IN collect(f.slot) WHERE x IS NOT NULL] AS slots
