MATCH (t:Topic) WHERE t.tenant = $tenant AND t.user_id = $user_id
RETURN t {.topic_id, .name, .summary_count, .fact_count} AS topic
ORDER BY t.name SKIP $offset LIMIT $limit
