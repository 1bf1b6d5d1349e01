MATCH (s:Summary)
WHERE s.tenant = $tenant AND s.validity = 'active'
  AND s.memory_status IN ['active', 'deprioritized']
RETURN s.summary_id AS summary_id, s.decay_factor AS decay_factor, s.event_end AS event_end,
  s.retrieval_boost AS retrieval_boost, s.memory_status AS memory_status
