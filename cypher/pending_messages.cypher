// A user's pending Messages that are due (a failed attempt waits out its backoff), oldest first.
// Times as [epochSeconds, microsecond, offsetSeconds] (graph.db.instant, cheap to decode);
// lists compare element by element, so they order as the instants do.
// A user chat turn comes with the assistant turn just before it in its session (`asked`:
// a short answer takes its attribute from that question), pending or processed; none when
// the turn before it is the user's own. One index seek backwards in the user's time order.
MATCH (m:Message)
USING INDEX m:Message(tenant, user_id, status)
WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.status = 'pending'
  AND (m.next_attempt_at IS NULL OR m.next_attempt_at <= $now)
WITH m ORDER BY m.timestamp, m.message_id LIMIT $limit
CALL (m) {
  OPTIONAL MATCH (p:Message)
  WHERE m.role = 'user' AND coalesce(m.event_type, 'message') = 'message'
    AND p.tenant = m.tenant AND p.user_id = m.user_id AND p.timestamp <= m.timestamp
    AND p.session_id = m.session_id AND p.role IN ['user', 'assistant']
    AND coalesce(p.event_type, 'message') = 'message'
    AND (p.timestamp < m.timestamp OR p.message_id < m.message_id)
  WITH p ORDER BY p.timestamp DESC, p.message_id DESC LIMIT 1
  RETURN CASE WHEN p.role = 'assistant' THEN p {.message_id, .content} END AS asked
}
RETURN m {.message_id, .user_id, .session_id, .role, .content, .event_type, .page,
  .metadata_json, .lang, asked: asked,
  timestamp: [m.timestamp.epochSeconds, m.timestamp.microsecond, m.timestamp.offsetSeconds]} AS m
ORDER BY m.timestamp, m.message_id
