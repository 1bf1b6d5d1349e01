// World entities by id (the DataLoaders'), scoped by tenant.
MATCH (e:Entity) WHERE e.entity_id IN $ids AND e.tenant = $tenant AND e.world = true
RETURN e {.entity_id, .user_id, .name, .kind, .aliases, .created_at, .updated_at} AS entity
