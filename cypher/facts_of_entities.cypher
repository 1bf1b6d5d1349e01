// Entity → the active Facts ABOUT it, newest first.
MATCH (f:Fact)-[:ABOUT]->(e:Entity)
WHERE e.entity_id IN $ids AND e.tenant = $tenant AND f.validity = 'active'
WITH e, f ORDER BY f.time_end DESC, f.fact_id
RETURN e.entity_id AS entity_id, collect(f.fact_id) AS fact_ids
