// Store a batch of Messages; a uid already present is left untouched (a duplicate).
UNWIND $rows AS row
MERGE (u:User {uid: row.user_uid})
  ON CREATE SET u.tenant = $tenant, u.user_id = row.user_id, u.created_at = $now
MERGE (s:Session {uid: row.session_uid})
  ON CREATE SET s.tenant = $tenant, s.user_id = row.user_id, s.session_id = row.session_id
MERGE (s)-[:OF_USER]->(u)
MERGE (m:Message {uid: row.uid})
  ON CREATE SET m.tenant = $tenant, m.user_id = row.user_id, m.message_id = row.message_id,
    m.session_id = row.session_id, m.role = row.role, m.content = row.content, m.author = row.author,
    m.timestamp = datetime(row.timestamp), m.event_type = row.event_type, m.page = row.page,
    m.metadata_json = row.metadata_json, m.lang = row.lang, m.ingested_at = $now,
    m.status = 'pending', m.batch = $batch, m.scope = row.scope
MERGE (m)-[:IN_SESSION]->(s)
RETURN row.message_id AS message_id, m.batch = $batch AS created
