MATCH (s:Summary)-[:IN_TOPIC]->(t:Topic) WHERE t.topic_id IN $ids AND t.tenant = $tenant
  AND ($all OR s.validity = 'active')
WITH t, s ORDER BY s.created_at DESC
RETURN t.topic_id AS topic_id, collect(s.summary_id) AS summary_ids
