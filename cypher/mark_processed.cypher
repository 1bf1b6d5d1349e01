// Processed Messages keep their embedding (chat turns) for recall's last fallback, and
// whether their extraction gave nothing but rejections (recall does not rank those).
UNWIND $rows AS row
MATCH (m:Message {uid: row.uid})
SET m.status = 'processed', m.processed_at = $now,
    m.embedding = coalesce(row.embedding, m.embedding), m.rejected = row.rejected
RETURN count(m) AS n
