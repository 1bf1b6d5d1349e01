MATCH (t:Topic) WHERE t.tenant = $tenant AND t.user_id = $user_id
RETURN t.topic_id AS topic_id, t.name AS name, t.embedding AS embedding,
  t.aliases_text AS aliases_text
ORDER BY t.name
