// Carry out a deletion plan. Every id here came from the plan, checked in this transaction.
MATCH (m:Message {uid: $uid}) WHERE m.tenant = $tenant
OPTIONAL MATCH (k:Fact) WHERE k.fact_id IN $kept AND k.tenant = $tenant
SET k.source_message_ids = [x IN k.source_message_ids WHERE x <> m.message_id]
WITH DISTINCT m
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
  SET f.validity = 'active', f.status = 'chunked'
  RETURN count(*) AS restored
}
CALL () {
  MATCH (e:Entity) WHERE e.entity_id IN $entities AND e.tenant = $tenant
  DETACH DELETE e
  RETURN count(*) AS entities
}
DETACH DELETE m
RETURN facts, summaries, restored, entities
