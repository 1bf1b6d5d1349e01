// The queue as /metrics shows it (all tenants): pending Messages, counted up to $cap, and
// the ingest time of the oldest of those (epoch seconds; null when none is pending). One
// seek of the status index, bounded by $cap, cheap enough for every scrape.
CALL () {
  MATCH (m:Message) WHERE m.status = 'pending'
  RETURN m.ingested_at AS at LIMIT $cap
}
WITH count(at) AS pending, min(at) AS oldest
RETURN pending, oldest.epochSeconds AS oldest_s
