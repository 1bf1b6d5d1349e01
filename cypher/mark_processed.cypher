// Processed Messages keep their embedding (chat turns) for recall, and why their extraction
// gave nothing but rejections, when it did (recall ranks those lower and says why); how
// many times they were processed and by which worker (processing is exactly-once: 1).
// Several users at once (a unit of work, graph.fencing.write_fenced): one row of $users per
// user, with its tenant, user_id, scope, uid and its own rows; $now is the transaction's.
UNWIND $users AS user
CALL (user) {
  UNWIND user.rows AS row
  MATCH (m:Message {uid: row.uid})
  SET m.status = 'processed', m.processed_at = $now,
      m.processed_count = coalesce(m.processed_count, 0) + 1, m.processed_by = user.owner,
      m.embedding = coalesce(row.embedding, m.embedding), m.rejected = row.rejected IS NOT NULL,
      m.rejected_reason = row.rejected
  RETURN count(m) AS n
}
RETURN user.tenant AS tenant, user.user_id AS user_id, n
