// A user's Facts, newest first: the active ones (or all with $all), or with $as_of those
// valid at that time (valid_from <= $as_of < valid_to).
MATCH (f:Fact) WHERE f.tenant = $tenant AND f.user_id = $user_id
  AND CASE WHEN $as_of IS NULL THEN $all OR f.validity = 'active'
    ELSE coalesce(f.valid_from, f.time_start) <= $as_of
      AND (f.validity = 'active' OR f.valid_to > $as_of) END
RETURN f.fact_id AS fact_id
ORDER BY f.time_end DESC, f.fact_id SKIP $offset LIMIT $limit
