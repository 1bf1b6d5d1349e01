// Delete one batch of a user's nodes of one label; the caller loops until none remain.
// {label} is filled from graph.models.LABELS (an allow-list), never from a caller.
MATCH (n:{label}) WHERE n.tenant = $tenant AND n.user_id = $user_id
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted
