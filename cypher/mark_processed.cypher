// Processed Messages keep their embedding (chat turns) for recall's last fallback, and
// whether their extraction gave nothing but rejections (recall does not rank those); how
// many times they were processed and by which worker (processing is exactly-once: 1).
UNWIND $rows AS row
MATCH (m:Message {uid: row.uid})
SET m.status = 'processed', m.processed_at = $now,
    m.processed_count = coalesce(m.processed_count, 0) + 1, m.processed_by = $owner,
    m.embedding = coalesce(row.embedding, m.embedding), m.rejected = row.rejected
RETURN count(m) AS n
