MATCH (f:Fact) WHERE f.tenant = $tenant AND f.user_id = $user_id
  AND ($all OR f.validity = 'active')
RETURN f.fact_id AS fact_id
ORDER BY f.time_end DESC, f.fact_id SKIP $offset LIMIT $limit
