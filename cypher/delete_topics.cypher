MATCH (t:Topic) WHERE t.topic_id IN $ids AND t.tenant = $tenant
DETACH DELETE t
RETURN count(*) AS topics
