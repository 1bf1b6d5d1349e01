// Processed Messages keep their embedding (chat turns) for recall's last fallback.
UNWIND $rows AS row
MATCH (m:Message {uid: row.uid})
SET m.status = 'processed', m.processed_at = $now,
    m.embedding = coalesce(row.embedding, m.embedding)
RETURN count(m) AS n
