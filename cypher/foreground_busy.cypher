// Whether any API process serves agents now (its `until` has not passed): workers then
// process only their share of the time.
OPTIONAL MATCH (f:Foreground) WHERE f.until > $now
RETURN count(f) > 0 AS busy
