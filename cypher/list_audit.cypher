MATCH (a:AuditRecord) WHERE a.tenant = $tenant
RETURN a {.audit_id, .action, .target, .ids, .counts_json, .at} AS audit
ORDER BY a.at DESC SKIP $offset LIMIT $limit
