MATCH (f:Fact) WHERE f.fact_id IN $ids AND f.tenant = $tenant
RETURN f.fact_id AS fact_id
