// Processed Messages keep their embedding (chat turns) for recall, and why their extraction
// gave nothing but rejections, when it did (recall ranks those lower and says why); how
// many times they were processed and by which worker (processing is exactly-once: 1).
UNWIND $rows AS row
MATCH (m:Message {uid: row.uid})
SET m.status = 'processed', m.processed_at = $now,
    m.processed_count = coalesce(m.processed_count, 0) + 1, m.processed_by = $owner,
    m.embedding = coalesce(row.embedding, m.embedding), m.rejected = row.rejected IS NOT NULL,
    m.rejected_reason = row.rejected
RETURN count(m) AS n
