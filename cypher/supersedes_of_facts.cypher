MATCH (f:Fact) WHERE f.fact_id IN $ids AND f.tenant = $tenant
OPTIONAL MATCH (f)-[:SUPERSEDES]->(old:Fact)
WITH f, collect(old.fact_id) AS supersedes
OPTIONAL MATCH (new:Fact)-[:SUPERSEDES]->(f)
RETURN f.fact_id AS fact_id, supersedes, collect(new.fact_id) AS superseded_by
