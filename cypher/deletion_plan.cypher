// What deleting one Message would touch (read only; deletion re-checks it in its own
// transaction). Facts whose only source it is go; Summaries they support go (their text
// holds the deleted content) and are re-derived from what remains.
MATCH (m:Message {uid: $uid}) WHERE m.tenant = $tenant
OPTIONAL MATCH (m)<-[:SOURCE]-(f:Fact)
OPTIONAL MATCH (f)-[:SOURCE]->(other:Message) WHERE other <> m
WITH m, f, count(other) AS others
WITH m, collect(CASE WHEN others = 0 THEN f END) AS removed,
  collect(CASE WHEN others > 0 THEN f END) AS kept
CALL (removed) {
  UNWIND removed AS f
  MATCH (f)-[:SUPPORTS]->(s:Summary)
  RETURN collect(DISTINCT s) AS tainted
}
CALL (removed) {
  UNWIND removed AS f
  MATCH (f)-[:SUPERSEDES]->(old:Fact)
  WHERE old.validity = 'superseded' AND NOT old IN removed
    AND NOT EXISTS { MATCH (x:Fact)-[:SUPERSEDES]->(old) WHERE NOT x IN removed }
  RETURN collect(DISTINCT old.fact_id) AS restored
}
CALL (removed) {
  UNWIND removed AS f
  MATCH (f)-[:MENTIONS]->(e:Entity)
  WITH DISTINCT e, removed
  WHERE NOT EXISTS { MATCH (x:Fact)-[:MENTIONS]->(e) WHERE NOT x IN removed }
  RETURN collect(e.entity_id) AS orphan_entities
}
RETURN m.message_id AS message_id, m.user_id AS user_id,
  [f IN removed | f.fact_id] AS removed_facts, [f IN kept | f.fact_id] AS kept_facts,
  [s IN tainted | s {.summary_id, .validity, .topic}] AS summaries,
  restored, orphan_entities
