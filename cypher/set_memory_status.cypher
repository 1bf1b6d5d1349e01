MATCH (s:Summary {summary_id: $id}) WHERE s.tenant = $tenant
SET s.memory_status = $status, s.updated_at = $now
RETURN s.summary_id AS summary_id
