// The embeddings of some of a user's Summaries by id, with their text: a Summary planned
// again with a text one of them has keeps its vector (nothing to embed).
MATCH (s:Summary)
WHERE s.summary_id IN $ids AND s.tenant = $tenant AND s.embedding IS NOT NULL
RETURN s.content AS content, s.embedding AS embedding
