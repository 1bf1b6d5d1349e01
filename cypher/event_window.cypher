// A user's behaviour events (any status) in a time window: the evidence to aggregate.
// Bounded by the batch, not by the history: the latest $limit events of the window (read
// in the message_user_time index's order, newest first: ordering by all its properties
// lets the planner stop after $limit), and the batch's own events ($uids), all of them.
// Times as [epochSeconds, microsecond, offsetSeconds] (graph.db.instant, cheap to decode);
// lists compare element by element, so they order as the instants do.
CALL () {
  MATCH (m:Message)
  USING INDEX m:Message(tenant, user_id, timestamp)
  WHERE m.tenant = $tenant AND m.user_id = $user_id AND m.event_type <> 'message'
    AND m.timestamp >= $since AND m.timestamp <= $until
  WITH m ORDER BY m.tenant DESC, m.user_id DESC, m.timestamp DESC LIMIT $limit
  RETURN m
  UNION
  MATCH (m:Message)
  WHERE m.uid IN $uids
  RETURN m
}
RETURN m {.message_id, .user_id, .session_id, .role, .content, .event_type, .page,
  .metadata_json, .lang,
  timestamp: [m.timestamp.epochSeconds, m.timestamp.microsecond, m.timestamp.offsetSeconds]} AS m
ORDER BY m.timestamp, m.message_id
