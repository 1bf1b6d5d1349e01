// New Summary versions with SUPPORTS / IN_TOPIC / MENTIONS edges; s.subject (and its kind)
// names the entity of the user's world all its Facts speak of (null: the user).
// A Summary one of whose Facts is gone (deleted meanwhile) is not written.
// Several users at once (a unit of work, graph.fencing.write_fenced): one row of $users per
// user, with its tenant, user_id, scope, uid and its own rows; $now is the transaction's.
UNWIND $users AS user
CALL (user) {
  UNWIND user.summaries AS row
  WITH user, row WHERE all(fid IN row.source_facts WHERE EXISTS { MATCH (:Fact {fact_id: fid}) })
  MATCH (t:Topic {topic_id: row.topic_id})
  MERGE (s:Summary {summary_id: row.summary_id})
    ON CREATE SET s.tenant = user.tenant, s.user_id = user.user_id, s.key = row.key,
      s.content = row.content, s.topic = row.topic, s.kind = row.kind,
      s.source_facts = row.source_facts, s.confidence = row.confidence,
      s.event_start = row.event_start, s.event_end = row.event_end, s.labels = row.labels,
      s.entities = row.entity_names, s.decay_factor = row.decay_factor,
      s.validity = 'active', s.memory_status = 'active', s.retrieval_boost = 1.0,
      s.evidence_json = row.evidence_json, s.anchors = row.anchors,
      s.embedding = row.embedding, s.created_at = $now, s.updated_at = $now,
      s.version = row.version, s.lang = row.lang, s.scope = user.scope, s.subject = row.subject,
      s.subject_kind = row.subject_kind
    // the same facts and text as an older version (e.g. a deleted correction): revive it
    ON MATCH SET s.validity = 'active', s.updated_at = $now, s.subject = row.subject,
      s.subject_kind = row.subject_kind
  MERGE (s)-[:IN_TOPIC]->(t)
  WITH user, s, row
  CALL (s, row, user) {
    UNWIND row.source_facts AS fid
    MATCH (f:Fact {fact_id: fid})
    MERGE (f)-[:SUPPORTS]->(s)
    SET f.status = 'processed'
    RETURN count(f) AS facts
  }
  WITH user, s, row
  CALL (s, row, user) {
    UNWIND row.entities AS e
    MERGE (n:Entity {entity_id: e.entity_id})
      ON CREATE SET n.tenant = user.tenant, n.user_id = user.user_id, n.name = e.name,
        n.normalized = e.normalized, n.type = e.type
    MERGE (s)-[:MENTIONS]->(n)
    RETURN count(n) AS entities
  }
  RETURN s.summary_id AS summary_id
}
RETURN user.tenant AS tenant, user.user_id AS user_id, summary_id
