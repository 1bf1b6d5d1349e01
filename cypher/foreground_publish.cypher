// An API process tells the workers that agents are waiting on it (issue 19): its node's
// `until` moves on while it serves recalls; the nodes of APIs gone for `$stale` are removed.
MERGE (f:Foreground {source: $source})
SET f.until = $until
WITH count(f) AS published
OPTIONAL MATCH (old:Foreground) WHERE old.until < $stale
DELETE old
RETURN published
