// The current (active-validity) Summaries of some of a user's Topics, with their facts' slots;
// not their embeddings (summary_embeddings: only those of the texts planned again).
MATCH (s:Summary)
USING INDEX s:Summary(tenant, user_id, topic)
WHERE s.tenant = $tenant AND s.user_id = $user_id AND s.validity = 'active'
  AND s.topic IN $topics
OPTIONAL MATCH (f:Fact)-[:SUPPORTS]->(s)
RETURN s.summary_id AS summary_id, s.key AS key, s.content AS content, s.topic AS topic,
  s.source_facts AS source_facts, s.version AS version,
  [x IN collect(f.slot) WHERE x IS NOT NULL] AS slots
