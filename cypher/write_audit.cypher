CREATE (a:AuditRecord {audit_id: $audit_id, tenant: $tenant, action: $action,
  target: $target, ids: $ids, counts_json: $counts_json, at: $now})
RETURN a.audit_id AS audit_id
