// Query Memory in one round trip: a user's Summaries (with Topic and supporting Facts),
// the Facts and Messages closest to the query (the user's own turns only, with whether a
// Fact cites them and whether extraction rejected them), and the recent Messages: the
// session's, or without a session those since $recent_since (the conversation in progress).
// $as_of (null: now) recalls what was known then: Messages up to it, the Facts valid at it
// (valid_from <= $as_of < valid_to; a Fact superseded later is current then), and of each
// Summary's versions (active or deprecated) the latest whose Facts were all valid at it.
// Each Fact comes with the ids of the Messages it cites (a turn's evidence is summed) and
// their sessions (a session's evidence is summed too).
// Similarity is exact cosine over the user's own nodes (found by the scope index), and
// full-text hits come from the Chinese-aware indexes filtered to the user's scope token.
// Times go out as [epochSeconds, microsecond, offsetSeconds] (graph.db.instant): decoding
// driver temporals costs more than the query itself.
CALL () {
  CALL () {
    WITH $as_of AS a WHERE a IS NULL
    MATCH (s:Summary)
    WHERE s.tenant = $tenant AND s.user_id = $user_id AND s.validity = 'active'
      AND s.memory_status IN $statuses AND s.event_start <= $now
    RETURN s
    UNION
    WITH $as_of AS a WHERE a IS NOT NULL
    MATCH (s:Summary)
    WHERE s.tenant = $tenant AND s.user_id = $user_id
      AND s.validity IN ['active', 'deprecated']
      AND s.memory_status IN $statuses AND s.event_start <= $now
      AND size(s.source_facts) > 0
      AND COUNT { MATCH (f:Fact)-[:SUPPORTS]->(s)
        WHERE coalesce(f.valid_from, f.time_start) <= a
          AND (f.validity = 'active' OR f.valid_to > a)
      } = size(s.source_facts)
    WITH collect(s) AS held
    UNWIND held AS s
    WITH s, held
    WHERE none(n IN held WHERE EXISTS { MATCH (n)-[:SUPERSEDES*1..32]->(s) })
    RETURN s
  }
  OPTIONAL MATCH (s)-[:IN_TOPIC]->(t:Topic)
  RETURN collect(s {.summary_id, .content, .topic, .kind, .confidence, .retrieval_boost,
    .decay_factor, .source_facts, .memory_status, .anchors,
    event_start: [s.event_start.epochSeconds, s.event_start.microsecond, s.event_start.offsetSeconds],
    event_end: [s.event_end.epochSeconds, s.event_end.microsecond, s.event_end.offsetSeconds],
    sv: vector.similarity.cosine(s.embedding, $qvec),
    tv: CASE WHEN t IS NULL THEN 0.0 ELSE vector.similarity.cosine(t.embedding, $qvec) END
  }) AS summaries
}
CALL () {
  WITH $lucene AS q WHERE q IS NOT NULL
  CALL db.index.fulltext.queryNodes('summary_text', q, {limit: 50}) YIELD node, score
  WHERE node.tenant = $tenant
  RETURN collect({id: node.summary_id, score: score}) AS summary_hits
}
CALL () {
  WITH $lucene AS q WHERE q IS NOT NULL
  CALL db.index.fulltext.queryNodes('fact_text', q, {limit: $fact_k}) YIELD node, score
  WHERE node.tenant = $tenant AND node.time_start <= $now
    AND CASE WHEN $as_of IS NULL THEN node.validity = 'active'
    ELSE coalesce(node.valid_from, node.time_start) <= $as_of
      AND (node.validity = 'active' OR node.valid_to > $as_of) END
  RETURN collect({id: node.fact_id, score: score,
    sources: [(node)-[:SOURCE]->(m:Message) | m.message_id],
    sessions: [(node)-[:SOURCE]->(m:Message) | m.session_id],
    time_start: [node.time_start.epochSeconds, node.time_start.microsecond, node.time_start.offsetSeconds],
    time_end: [node.time_end.epochSeconds, node.time_end.microsecond, node.time_end.offsetSeconds]
  }) AS fact_hits
}
CALL () {
  MATCH (f:Fact)
  WHERE f.tenant = $tenant AND f.user_id = $user_id AND f.time_start <= $now
    AND CASE WHEN $as_of IS NULL THEN f.validity = 'active'
    ELSE coalesce(f.valid_from, f.time_start) <= $as_of
      AND (f.validity = 'active' OR f.valid_to > $as_of) END
  WITH f, vector.similarity.cosine(f.embedding, $qvec) AS fv
  ORDER BY fv DESC LIMIT $fact_k
  RETURN collect({id: f.fact_id, fv: fv, sources: [(f)-[:SOURCE]->(m:Message) | m.message_id],
    sessions: [(f)-[:SOURCE]->(m:Message) | m.session_id],
    time_start: [f.time_start.epochSeconds, f.time_start.microsecond, f.time_start.offsetSeconds],
    time_end: [f.time_end.epochSeconds, f.time_end.microsecond, f.time_end.offsetSeconds]
  }) AS fact_near
}
CALL () {
  WITH $lucene AS q WHERE q IS NOT NULL
  CALL db.index.fulltext.queryNodes('message_search', q, {limit: $message_k}) YIELD node, score
  WHERE node.tenant = $tenant AND node.timestamp <= $now AND node.role = 'user'
    AND ($as_of IS NULL OR node.timestamp <= $as_of)
    AND coalesce(node.rejected, false) = false
  RETURN collect(node {.message_id, .content, .event_type, .role, .session_id, .metadata_json,
    .rejected, sourced: EXISTS { (node)<-[:SOURCE]-(:Fact) }, score: score,
    timestamp: [node.timestamp.epochSeconds, node.timestamp.microsecond, node.timestamp.offsetSeconds]
  }) AS message_hits
}
CALL () {
  MATCH (m:Message)
  WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.embedding IS NOT NULL
    AND m.timestamp <= $now AND m.role = 'user' AND coalesce(m.rejected, false) = false
    AND ($as_of IS NULL OR m.timestamp <= $as_of)
  WITH m, vector.similarity.cosine(m.embedding, $qvec) AS mv
  ORDER BY mv DESC LIMIT $message_k
  RETURN collect(m {.message_id, .content, .event_type, .role, .session_id, .metadata_json,
    .rejected, sourced: EXISTS { (m)<-[:SOURCE]-(:Fact) }, mv: mv,
    timestamp: [m.timestamp.epochSeconds, m.timestamp.microsecond, m.timestamp.offsetSeconds]
  }) AS messages
}
CALL () {
  MATCH (m:Message)
  WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.timestamp <= $now
    AND ($as_of IS NULL OR m.timestamp <= $as_of)
    AND ($session_id IS NULL OR m.session_id = $session_id)
    AND ($session_id IS NOT NULL OR $recent_since IS NULL OR m.timestamp >= $recent_since)
  WITH m ORDER BY m.timestamp DESC LIMIT $recent_k
  RETURN collect(m {.message_id, .content, .event_type, .role, .session_id, .metadata_json,
    timestamp: [m.timestamp.epochSeconds, m.timestamp.microsecond, m.timestamp.offsetSeconds]
  }) AS recent
}
RETURN summaries, summary_hits, fact_hits, fact_near, messages, message_hits, recent
