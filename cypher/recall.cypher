// Query Memory in one round trip: a user's Summaries (with Topic and supporting Facts),
// the Facts and Messages closest to the query (the user's own turns only, every one of them
// whether or not a Fact came from it: with whether a Fact cites it and why extraction
// rejected it, if it did), and the recent Messages: the
// session's, or without a session those since $recent_since (the conversation in progress).
// $as_of (null: now) recalls what was known then: Messages up to it, the Facts valid at it
// (valid_from <= $as_of < valid_to; a Fact superseded later is current then), and of each
// Summary's versions (active or deprecated) the latest whose Facts were all valid at it.
// The Facts about an entity of the user's world the query names come as a list of their own.
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
    about: CASE WHEN s.subject_kind = 'person' THEN s.subject END,
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
// The user's world entities the query names (their name or an alias among its words;
// $qwords is the query's match form, graph.entities.query_form: a CJK term may sit inside a
// run, a Latin one is a whole word) and their Facts, closest to the query first.
CALL () {
  MATCH (e:Entity)
  WHERE e.tenant = $tenant AND e.user_id = $user_id AND e.world = true
    AND any(t IN e.terms WHERE $qwords CONTAINS
      CASE WHEN t =~ '.*\\p{IsHan}.*' THEN t ELSE ' ' + t + ' ' END)
  MATCH (f:Fact)-[:ABOUT]->(e)
  WHERE f.tenant = $tenant AND f.time_start <= $now
    AND CASE WHEN $as_of IS NULL THEN f.validity = 'active'
    ELSE coalesce(f.valid_from, f.time_start) <= $as_of
      AND (f.validity = 'active' OR f.valid_to > $as_of) END
  WITH e, f, coalesce(vector.similarity.cosine(f.embedding, $qvec), -1.0) AS fv
  ORDER BY fv DESC, f.fact_id LIMIT $entity_k
  RETURN collect({id: f.fact_id, fv: fv, about: e.name,
    sources: [(f)-[:SOURCE]->(m:Message) | m.message_id],
    sessions: [(f)-[:SOURCE]->(m:Message) | m.session_id],
    time_start: [f.time_start.epochSeconds, f.time_start.microsecond, f.time_start.offsetSeconds],
    time_end: [f.time_end.epochSeconds, f.time_end.microsecond, f.time_end.offsetSeconds]
  }) AS entity_facts
}
CALL () {
  WITH $lucene AS q WHERE q IS NOT NULL
  CALL db.index.fulltext.queryNodes('message_search', q, {limit: $message_k}) YIELD node, score
  WHERE node.tenant = $tenant AND node.timestamp <= $now AND node.role = 'user'
    AND ($as_of IS NULL OR node.timestamp <= $as_of)
  RETURN collect(node {.message_id, .content, .event_type, .role, .session_id, .metadata_json,
    .rejected, .rejected_reason, sourced: EXISTS { (node)<-[:SOURCE]-(:Fact) }, score: score,
    timestamp: [node.timestamp.epochSeconds, node.timestamp.microsecond, node.timestamp.offsetSeconds]
  }) AS message_hits
}
CALL () {
  MATCH (m:Message)
  WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.embedding IS NOT NULL
    AND m.timestamp <= $now AND m.role = 'user'
    AND ($as_of IS NULL OR m.timestamp <= $as_of)
  WITH m, vector.similarity.cosine(m.embedding, $qvec) AS mv
  ORDER BY mv DESC LIMIT $message_k
  RETURN collect(m {.message_id, .content, .event_type, .role, .session_id, .metadata_json,
    .rejected, .rejected_reason, sourced: EXISTS { (m)<-[:SOURCE]-(:Fact) }, mv: mv,
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
// Each candidate Fact in full with its source Messages, so that the Facts recall shows need
// no second round trip: the fields of cypher/facts_by_ids.cypher (graph.records.stored_fact).
CALL (fact_hits, fact_near, entity_facts) {
  UNWIND [x IN fact_hits | x.id] + [x IN fact_near | x.id] + [x IN entity_facts | x.id] AS fid
  WITH DISTINCT fid
  MATCH (f:Fact {fact_id: fid}) WHERE f.tenant = $tenant
  CALL (f) {
    OPTIONAL MATCH (f)-[:SOURCE]->(m:Message)
    WITH m ORDER BY m.timestamp
    RETURN collect(m {.message_id, .user_id, .session_id, .content, .event_type, .role, .page,
      .metadata_json, .lang, .status,
      timestamp: [m.timestamp.epochSeconds, m.timestamp.microsecond, m.timestamp.offsetSeconds]
    }) AS sources
  }
  RETURN collect({fact: f {.fact_id, .user_id, .content, .kind, .slot, .value, .polarity,
    .explicit, .confidence, .validity, .status, .labels, .entities, .source_message_ids, .lang,
    .topic, .anchors, .subject, .subject_kind,
    subject_id: head([(f)-[:ABOUT]->(e:Entity) | e.entity_id]),
    time_start: [f.time_start.epochSeconds, f.time_start.microsecond, f.time_start.offsetSeconds],
    time_end: [f.time_end.epochSeconds, f.time_end.microsecond, f.time_end.offsetSeconds],
    created_at: [f.created_at.epochSeconds, f.created_at.microsecond, f.created_at.offsetSeconds]
  }, sources: sources}) AS facts
}
// The candidate Messages that carry a superseded value, with the active Facts that replaced
// it (along SUPERSEDES chains; none when the replacement is gone): recall marks such a
// Message so its old value is not read as current. A Message that a replacing Fact also
// cites carries the current value itself and is not marked. With $as_of, as things stood
// then: only a Fact superseded by that time counts, replaced by the Facts valid at it.
// $uid_prefix + message_id is the Message's uid (graph.ingest.message_uid).
CALL (messages, message_hits, recent) {
  UNWIND [x IN messages + message_hits + recent | $uid_prefix + x.message_id] AS uid
  WITH DISTINCT uid
  MATCH (m:Message {uid: uid})<-[:SOURCE]-(old:Fact)
  WHERE old.tenant = $tenant AND old.validity = 'superseded'
    AND ($as_of IS NULL OR old.valid_to <= $as_of)
  OPTIONAL MATCH (old)<-[:SUPERSEDES*1..8]-(new:Fact)
  WHERE CASE WHEN $as_of IS NULL THEN new.validity = 'active'
    ELSE new.valid_from <= $as_of
      AND (new.validity = 'active' OR new.valid_to > $as_of) END
  WITH m, old, collect(DISTINCT new) AS news
  WHERE none(n IN news WHERE EXISTS { (n)-[:SOURCE]->(m) })
  UNWIND CASE WHEN news = [] THEN [null] ELSE news END AS new
  WITH m, new ORDER BY new.valid_from, new.fact_id
  WITH m.message_id AS message_id, collect(DISTINCT CASE WHEN new IS NOT NULL
    THEN {fact_id: new.fact_id, content: new.content} END) AS replaced_by
  RETURN collect({message_id: message_id, replaced_by: replaced_by}) AS corrected
}
RETURN summaries, summary_hits, fact_hits, fact_near, messages, message_hits, recent, facts,
  corrected, entity_facts
