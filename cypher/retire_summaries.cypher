// Old versions become deprecated (kept for audit); the successor points at them.
UNWIND $retire AS r
MATCH (old:Summary {summary_id: r.summary_id}) WHERE old.tenant = $tenant
SET old.validity = 'deprecated', old.updated_at = $now
WITH old, r
OPTIONAL MATCH (new:Summary {summary_id: r.successor})
FOREACH (n IN CASE WHEN new IS NULL THEN [] ELSE [new] END | MERGE (n)-[:SUPERSEDES]->(old))
RETURN count(old) AS retired
