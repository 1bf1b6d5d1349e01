// Delete one batch of a user's nodes of one label; the caller loops until none remain.
// {label} is one of graph.nodes.SCHEMA_LABELS (an allow-list, graph/deletion.py
// label_query), never a caller's.
MATCH (n:{label}) WHERE n.tenant = $tenant AND n.user_id = $user_id
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted
