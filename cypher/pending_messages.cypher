// A user's pending Messages that are due (a failed attempt waits out its backoff), oldest
// first, in one row (`messages`), with the turn just before each pending user turn in its
// session (`turns`: id, session, role, time, text; the latest user or assistant turn of
// the day before it): graph.pending gives each user turn the turn before it (a short
// answer takes its attribute from the assistant's question; "he" may name whom the user's
// last turn was about). One index seek for the batch, one ordered seek per user turn.
// Times as [epochSeconds, microsecond, offsetSeconds] (graph.db.instant, cheap to decode);
// lists compare element by element, so they order as the instants do.
MATCH (m:Message)
USING INDEX m:Message(tenant, user_id, status)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.status = 'pending'
  AND (m.next_attempt_at IS NULL OR m.next_attempt_at <= $now)
WITH m ORDER BY m.timestamp, m.message_id LIMIT $limit
WITH collect(m) AS ms
CALL (ms) {
  UNWIND ms AS x
  WITH x WHERE x.role = 'user'
  CALL (x) {
    MATCH (p:Message)
    USING INDEX p:Message(tenant, user_id, timestamp)
    WHERE p.tenant = $tenant AND p.user_id = $user_id
      AND p.timestamp >= x.timestamp - duration('P1D') AND p.timestamp <= x.timestamp
      AND (p.timestamp < x.timestamp OR p.message_id < x.message_id)
      AND p.session_id = x.session_id AND p.role IN ['user', 'assistant']
    WITH p ORDER BY p.timestamp DESC, p.message_id DESC LIMIT 1
    RETURN p
  }
  WITH DISTINCT p
  RETURN collect(p {.message_id, .session_id, .role, .content,
    timestamp: [p.timestamp.epochSeconds, p.timestamp.microsecond, p.timestamp.offsetSeconds]})
    AS turns
}
RETURN [m IN ms | m {.message_id, .user_id, .session_id, .role, .content, .event_type, .page,
  .metadata_json, .lang,
  timestamp: [m.timestamp.epochSeconds, m.timestamp.microsecond, m.timestamp.offsetSeconds]}]
  AS messages, turns
