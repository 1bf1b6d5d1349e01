// A user's world entities (what Facts are ABOUT), the latest touched first.
MATCH (e:Entity)
WHERE e.tenant = $tenant AND e.user_id = $user_id AND e.world = true
RETURN e {.entity_id, .user_id, .name, .kind, .aliases, .created_at, .updated_at} AS entity
ORDER BY e.updated_at DESC, e.entity_id SKIP $offset LIMIT $limit
