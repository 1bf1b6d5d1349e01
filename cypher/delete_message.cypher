// Carry out a deletion plan. Every id here came from the plan, checked in this transaction.
// Kept Facts take their re-derived sources, sessions, anchors, time range and entities
// ($revised; entity_ids null: unknown, kept); Entities no Fact mentions (or is ABOUT) any
// more go.
MATCH (m:Message {uid: $uid}) WHERE m.tenant = $tenant
CALL () {
  UNWIND $revised AS r
  MATCH (k:Fact {fact_id: r.fact_id}) WHERE k.tenant = $tenant
  SET k.source_message_ids = r.source_message_ids, k.session_ids = r.session_ids,
    k.event_types = r.event_types, k.anchors = r.anchors, k.time_start = r.time_start,
    k.time_end = r.time_end, k.provenance = r.provenance,
    k.entities = coalesce(r.entity_names, k.entities)
  WITH k, r
  CALL (k, r) {
    MATCH (k)-[x:MENTIONS]->(e:Entity)
    WHERE r.entity_ids IS NOT NULL AND NOT e.entity_id IN r.entity_ids
    DELETE x
    RETURN count(x) AS unlinked
  }
  RETURN count(k) AS revised
}
CALL (m) {
  MATCH (f:Fact) WHERE f.fact_id IN $removed AND f.tenant = $tenant
  DETACH DELETE f
  RETURN count(*) AS facts
}
CALL () {
  MATCH (s:Summary) WHERE s.summary_id IN $purged AND s.tenant = $tenant
  DETACH DELETE s
  RETURN count(*) AS summaries
}
CALL () {
  MATCH (f:Fact) WHERE f.fact_id IN $restored AND f.tenant = $tenant
  SET f.validity = 'active', f.status = 'chunked', f.valid_to = null, f.superseded_at = null
  RETURN count(*) AS restored
}
CALL () {
  MATCH (e:Entity) WHERE e.entity_id IN $entities AND e.tenant = $tenant
  DETACH DELETE e
  RETURN count(*) AS entities
}
CALL () {
  MATCH (e:Entity) WHERE e.entity_id IN $dropped AND e.tenant = $tenant
    AND NOT EXISTS { MATCH (:Fact)-[:MENTIONS|ABOUT]->(e) }
  DETACH DELETE e
  RETURN count(*) AS unmentioned
}
DETACH DELETE m
RETURN facts, summaries, restored, entities + unmentioned AS entities, revised
