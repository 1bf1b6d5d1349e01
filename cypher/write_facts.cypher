// Merge extracted Facts with their SOURCE edges and entities; newer facts on a slot
// supersede older active ones (kept, marked superseded, linked by SUPERSEDES). "Older" is
// by valid_from, the time of the earliest source Message; valid_to is set on superseding.
// A row whose source Messages are not all there (deleted meanwhile) writes nothing.
// Every Fact it creates, changes or supersedes is marked `dirty`: consolidation re-plans
// their Topics. A re-merge that brings nothing new (every contribution already in its
// provenance, same confidence, labels and entities: an event window re-aggregated on each
// batch gives back the Facts it gave before) leaves the Fact as consolidated, so the cost of
// consolidation follows what a batch changed, not how much of the history it re-reads.
// A Fact about someone or something of the user's world (row.subject; null: the user) keeps
// its subject on itself and is linked (ABOUT) to that Entity: one per user and key, found by
// its id or, failing that, by an alias it is known by; its aliases gather what drafts bring,
// its kind is the first one given other than 'thing' (the Fact takes the Entity's kind).
// A slot is (subject, attribute): a Fact supersedes only Facts about the same subject (the
// same Entity, or both the user's), so the cousin's age never replaces the user's.
// A SOURCE edge to an assistant turn (the question an answer binds to) is marked `context`.
// `provenance`: one JSON record per contribution (its sources, anchors, time range),
// so a deletion can re-derive what a kept Fact holds from its remaining sources.
// Several users at once (a unit of work, graph.fencing.write_fenced): one row of $users per
// user, with its tenant, user_id, scope, uid and its own rows; $now is the transaction's.
UNWIND $users AS user
CALL (user) {
  UNWIND user.facts AS row
  WITH user, row WHERE all(uid IN row.source_uids WHERE EXISTS { MATCH (:Message {uid: uid}) })
  MERGE (f:Fact {fact_id: row.fact_id})
    ON CREATE SET f.tenant = user.tenant, f.user_id = user.user_id, f.key = row.key,
      f.content = row.content, f.kind = row.kind, f.slot = row.slot, f.value = row.value,
      f.polarity = row.polarity, f.explicit = row.explicit, f.lang = row.lang,
      f.validity = 'active', f.status = 'pending', f.created_at = $now, f.scope = user.scope,
      f.embedding = row.embedding, f.source_message_ids = [], f.session_ids = [],
      f.event_types = [], f.anchors = [], f.labels = [], f.entities = [], f.provenance = [],
      f.dirty = true
  WITH user, f, row, f.dirty = true OR f.confidence IS NULL OR f.confidence <> row.confidence
    OR coalesce(f.labels, []) <> row.labels OR coalesce(f.entities, []) <> row.entity_names
    OR any(p IN row.provenance WHERE NOT p IN coalesce(f.provenance, [])) AS changed
  SET f.dirty = CASE WHEN changed THEN true ELSE f.dirty END,
      f.provenance = coalesce(f.provenance, []) +
        [p IN row.provenance WHERE NOT p IN coalesce(f.provenance, [])],
      f.confidence = row.confidence, f.labels = row.labels, f.entities = row.entity_names,
      f.subject = row.subject.name, f.subject_kind = row.subject_kind,
      f.time_start = CASE WHEN f.time_start IS NULL OR row.time_start < f.time_start
                     THEN row.time_start ELSE f.time_start END,
      f.time_end = CASE WHEN f.time_end IS NULL OR row.time_end > f.time_end
                   THEN row.time_end ELSE f.time_end END
  WITH user, f, row
  CALL (f, row, user) {
    UNWIND row.source_uids AS uid
    MATCH (m:Message {uid: uid})
    MERGE (f)-[r:SOURCE]->(m)
    // the assistant's question a short answer binds to: context, not the user's statement
    SET r.context = CASE WHEN m.role = 'assistant' THEN true END
    RETURN collect(m) AS sources
  }
  WITH user, f, row, sources
  SET f.source_message_ids = [m IN sources | m.message_id] +
        [x IN f.source_message_ids WHERE NOT x IN [m IN sources | m.message_id]],
      f.session_ids = reduce(acc = f.session_ids, m IN sources |
        CASE WHEN m.session_id IN acc THEN acc ELSE acc + m.session_id END),
      f.event_types = reduce(acc = [], m IN sources | acc + m.event_type),
      f.anchors = reduce(acc = f.anchors, a IN row.anchors |
        CASE WHEN a IN acc THEN acc ELSE acc + a END),
      f.valid_from = coalesce(reduce(acc = f.valid_from, m IN sources |
        CASE WHEN acc IS NULL OR m.timestamp < acc THEN m.timestamp ELSE acc END), f.time_start)
  WITH user, f, row
  CALL (f, row, user) {
    UNWIND row.entities AS e
    MERGE (n:Entity {entity_id: e.entity_id})
      ON CREATE SET n.tenant = user.tenant, n.user_id = user.user_id, n.name = e.name,
        n.normalized = e.normalized, n.type = e.type
    MERGE (f)-[:MENTIONS]->(n)
    RETURN count(n) AS entities
  }
  WITH user, f, row
  CALL (f, row, user) {
    WITH user, f, row.subject AS s WHERE s IS NOT NULL
    OPTIONAL MATCH (same:Entity {entity_id: s.entity_id})
    WITH user, f, s, coalesce(same, head(COLLECT {
      MATCH (a:Entity)
      WHERE a.tenant = user.tenant AND a.user_id = user.user_id AND a.world = true AND s.term IN a.terms
      RETURN a ORDER BY a.created_at, a.entity_id LIMIT 1
    })) AS known
    MERGE (n:Entity {entity_id: coalesce(known.entity_id, s.entity_id)})
      ON CREATE SET n.tenant = user.tenant, n.user_id = user.user_id, n.world = true, n.name = s.name,
        n.normalized = s.key, n.kind = s.kind, n.aliases = [], n.terms = [], n.created_at = $now
    SET n.aliases = n.aliases + [x IN s.aliases WHERE NOT x IN n.aliases],
      n.terms = n.terms + [x IN s.terms WHERE NOT x IN n.terms],
      n.kind = CASE WHEN n.kind = 'thing' THEN s.kind ELSE n.kind END, n.updated_at = $now
    MERGE (f)-[:ABOUT]->(n)
    SET f.subject_kind = n.kind
    RETURN count(n) AS about
  }
  WITH user, f, row
  CALL (f, row, user) {
    OPTIONAL MATCH (newer:Fact)
    WHERE row.slot IS NOT NULL AND newer.tenant = user.tenant AND newer.user_id = user.user_id
      AND newer.slot = row.slot AND newer.validity = 'active' AND newer.fact_id <> f.fact_id
      AND coalesce(newer.valid_from, newer.time_end) > f.valid_from AND f.validity = 'active'
      AND coalesce(head([(newer)-[:ABOUT]->(a:Entity) | a.entity_id]), '') =
        coalesce(head([(f)-[:ABOUT]->(b:Entity) | b.entity_id]), '')
    WITH f, newer ORDER BY coalesce(newer.valid_from, newer.time_end) DESC LIMIT 1
    FOREACH (n IN CASE WHEN newer IS NULL THEN [] ELSE [newer] END |
      SET f.validity = 'superseded', f.superseded_at = $now,
        f.valid_to = coalesce(n.valid_from, n.time_end), n.dirty = true
      MERGE (n)-[:SUPERSEDES]->(f))
    RETURN count(newer) AS late
  }
  WITH user, f, row
  CALL (f, row, user) {
    MATCH (old:Fact)
    WHERE row.slot IS NOT NULL AND old.tenant = user.tenant AND old.user_id = user.user_id
      AND old.slot = row.slot AND old.validity = 'active' AND old.fact_id <> f.fact_id
      AND coalesce(old.valid_from, old.time_end) <= f.valid_from AND f.validity = 'active'
      AND coalesce(head([(old)-[:ABOUT]->(a:Entity) | a.entity_id]), '') =
        coalesce(head([(f)-[:ABOUT]->(b:Entity) | b.entity_id]), '')
    SET old.validity = 'superseded', old.superseded_at = $now, old.valid_to = f.valid_from,
      old.dirty = true
    MERGE (f)-[:SUPERSEDES]->(old)
    RETURN collect(old.fact_id) AS superseded
  }
  RETURN f.fact_id AS fact_id, superseded
}
RETURN user.tenant AS tenant, user.user_id AS user_id, fact_id, superseded
