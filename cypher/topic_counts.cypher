// The Topics' counts: those in $topics, or all of the user's ($topics null).
MATCH (t:Topic) WHERE t.tenant = $tenant AND t.user_id = $user_id
  AND ($topics IS NULL OR t.name IN $topics)
OPTIONAL MATCH (s:Summary)-[:IN_TOPIC]->(t) WHERE s.validity = 'active'
WITH t, count(s) AS summaries
OPTIONAL MATCH (f:Fact) USING INDEX f:Fact(tenant, user_id, topic) WHERE f.tenant = $tenant AND f.user_id = $user_id
  AND f.topic = t.name AND f.validity = 'active'
WITH t, summaries, count(f) AS facts
SET t.summary_count = summaries, t.fact_count = facts
RETURN count(t) AS topics
