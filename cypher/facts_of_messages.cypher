// Message → the Facts drawn from it.
MATCH (m:Message)<-[:SOURCE]-(f:Fact) WHERE m.uid IN $uids AND m.tenant = $tenant
RETURN m.message_id AS message_id, collect(f.fact_id) AS fact_ids
