// What deleting one Message would touch (read only; deletion re-checks it in its own
// transaction). Facts whose only source it is go; Facts with other sources are kept and
// re-derived from those (kept_rows); a `context` source (the assistant's question an
// answer bound to) keeps no Fact: without the answer the question says nothing. Summaries
// that name the Message go, whether through a removed or a kept Fact or in their evidence
// ($quoted: the id as JSON), and are re-derived from what remains. An Entity (mentioned, or
// of the user's world) that only removed Facts mention or are ABOUT goes with them.
MATCH (m:Message {uid: $uid}) WHERE m.tenant = $tenant
OPTIONAL MATCH (m)<-[:SOURCE]-(f:Fact)
OPTIONAL MATCH (f)-[r:SOURCE]->(other:Message) WHERE other <> m AND r.context IS NULL
WITH m, f, count(other) AS others
WITH m, collect(CASE WHEN others = 0 THEN f END) AS removed,
  collect(CASE WHEN others > 0 THEN f END) AS kept
CALL (removed, kept) {
  UNWIND removed + kept AS f
  MATCH (f)-[:SUPPORTS]->(s:Summary)
  RETURN collect(DISTINCT s) AS linked
}
CALL (m) {
  MATCH (s:Summary) WHERE s.tenant = m.tenant AND s.user_id = m.user_id
    AND s.evidence_json CONTAINS $quoted
  RETURN collect(s) AS named
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
  MATCH (f)-[:MENTIONS|ABOUT]->(e:Entity)
  WITH DISTINCT e, removed
  WHERE NOT EXISTS { MATCH (x:Fact)-[:MENTIONS|ABOUT]->(e) WHERE NOT x IN removed }
  RETURN collect(e.entity_id) AS orphan_entities
}
WITH m, removed, kept, linked + [s IN named WHERE NOT s IN linked] AS tainted, restored,
  orphan_entities
RETURN m.message_id AS message_id, m.user_id AS user_id,
  [f IN removed | f.fact_id] AS removed_facts, [f IN kept | f.fact_id] AS kept_facts,
  [k IN kept | k {.fact_id, .source_message_ids, .session_ids, .provenance,
    mentions: [(k)-[:MENTIONS]->(e:Entity) | e {.entity_id, .name, .type, .normalized}],
    sources: [(k)-[:SOURCE]->(o:Message) WHERE o <> m |
      o {.message_id, .session_id, .event_type, .timestamp}]}] AS kept_rows,
  [s IN tainted | s {.summary_id, .validity, .topic}] AS summaries,
  restored, orphan_entities
