// Messages that are sources of superseded Facts, with the active Facts that replaced them
// (along SUPERSEDES chains): recall marks such a Message so its old value is not read as
// current. A replacing Fact that cites the same Message does not count.
UNWIND $uids AS uid
MATCH (m:Message {uid: uid})<-[:SOURCE]-(old:Fact)
WHERE old.tenant = $tenant AND old.validity = 'superseded'
MATCH (old)<-[:SUPERSEDES*1..8]-(new:Fact)
WHERE new.validity = 'active' AND NOT (new)-[:SOURCE]->(m)
WITH m, new ORDER BY new.valid_from, new.fact_id
RETURN m.message_id AS message_id,
  collect(DISTINCT {fact_id: new.fact_id, content: new.content}) AS replaced_by
