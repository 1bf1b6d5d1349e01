// Messages that are sources of superseded Facts, with the active Facts that replaced them
// (along SUPERSEDES chains; none when the replacement is gone): recall marks such a Message
// so its old value is not read as current. A Message that a replacing Fact also cites
// carries the current value itself and is not marked. With $as_of, as things stood then:
// only a Fact superseded by that time counts, replaced by the Facts valid at it.
UNWIND $uids AS uid
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
RETURN m.message_id AS message_id,
  collect(DISTINCT CASE WHEN new IS NOT NULL
    THEN {fact_id: new.fact_id, content: new.content} END) AS replaced_by
