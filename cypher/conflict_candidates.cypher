// A user's latest active Facts with their embeddings and entities: the older Facts a
// correction may replace. Read newest first on the fact_active_time index, so the query
// stops after $limit Facts whatever the history (ordering by all the index's properties lets
// the planner use its order). Every written Fact has a valid_from (write_facts.cypher).
// Only the embeddings of the Facts near one of the batch's $vectors (cosine at least
// $min_cosine) are sent: a Fact farther than the conflict threshold from every new one
// cannot be replaced (corrections/conflicts.py skips a Fact with no embedding the
// same way).
MATCH (f:Fact)
USING INDEX f:Fact(tenant, user_id, validity, valid_from)
WHERE f.tenant = $tenant AND f.user_id = $user_id AND f.validity = 'active'
  AND f.valid_from IS NOT NULL AND f.embedding IS NOT NULL
WITH f ORDER BY f.tenant DESC, f.user_id DESC, f.validity DESC, f.valid_from DESC LIMIT $limit
OPTIONAL MATCH (f)-[:MENTIONS]->(e:Entity)
WITH f, collect(e {.name, .type}) AS ents
// vector.similarity.cosine is (1 + cosine) / 2
WITH f, ents,
  any(v IN $vectors WHERE 2 * vector.similarity.cosine(v, f.embedding) - 1 >= $min_cosine) AS near
// the Fact it replaced (the latest): what "back to the old one" restores
WITH f, ents, near, reduce(b = null, p IN [(f)-[:SUPERSEDES]->(o:Fact) | o] |
  CASE WHEN b IS NULL OR p.valid_from > b.valid_from THEN p ELSE b END) AS prev
RETURN f.fact_id AS fact_id, f.content AS content, f.kind AS kind,
  coalesce(f.polarity, 'neutral') AS polarity, f.slot AS slot,
  f.valid_from AS valid_from, CASE WHEN near THEN f.embedding END AS embedding,
  coalesce(f.source_message_ids, []) AS sources, ents, prev.content AS previous
