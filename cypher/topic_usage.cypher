// Per Topic of a user: facts filed under it and Summaries in it, minus what a deletion removes.
MATCH (t:Topic) WHERE t.tenant = $tenant AND t.user_id = $user_id AND t.name IN $topics
OPTIONAL MATCH (f:Fact) WHERE f.tenant = $tenant AND f.user_id = $user_id
  AND f.topic = t.name AND NOT f.fact_id IN $removed
WITH t, count(f) AS facts
OPTIONAL MATCH (s:Summary)-[:IN_TOPIC]->(t) WHERE NOT s.summary_id IN $purged
RETURN t.topic_id AS topic_id, t.name AS name, facts, count(s) AS summaries
