// The embeddings of some of a user's Facts by id (those that have one): a Summary planned
// in a batch gets the mean of its Facts' vectors, so its text need not be embedded.
MATCH (f:Fact)
WHERE f.fact_id IN $ids AND f.tenant = $tenant AND f.user_id = $user_id
  AND f.embedding IS NOT NULL
RETURN f.fact_id AS fact_id, f.embedding AS embedding
