// Fact → the Summaries it supports (every version, newest first).
MATCH (f:Fact)-[:SUPPORTS]->(s:Summary) WHERE f.fact_id IN $ids AND f.tenant = $tenant
WITH f, s ORDER BY s.created_at DESC
RETURN f.fact_id AS fact_id, collect(s.summary_id) AS summary_ids
