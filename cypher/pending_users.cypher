// Users with Messages still to process (the worker's queue), oldest first.
MATCH (m:Message) WHERE m.status = 'pending'
WITH m.tenant AS tenant, m.user_id AS user_id, min(m.ingested_at) AS since
RETURN tenant, user_id ORDER BY since LIMIT $limit
