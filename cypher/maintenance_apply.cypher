UNWIND $rows AS row
MATCH (s:Summary {summary_id: row.summary_id}) WHERE s.tenant = $tenant
SET s.memory_status = row.status, s.weight = row.weight, s.updated_at = $now
RETURN count(s) AS n
