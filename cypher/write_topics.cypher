// Create new Topics and file Facts under them (fact status → chunked).
// A new Topic is created only for Facts still there (not deleted meanwhile).
UNWIND $topics AS t
WITH t WHERE any(a IN $assign WHERE a.topic = t.name
  AND EXISTS { MATCH (:Fact {fact_id: a.fact_id}) })
MERGE (n:Topic {topic_id: t.topic_id})
  ON CREATE SET n.tenant = $tenant, n.user_id = $user_id, n.name = t.name,
    n.aliases_text = t.aliases_text, n.embedding = t.embedding, n.created_at = $now,
    n.summary_count = 0, n.fact_count = 0, n.scope = $scope
WITH count(*) AS created
UNWIND $assign AS a
MATCH (f:Fact {fact_id: a.fact_id}) WHERE f.tenant = $tenant
SET f.topic = a.topic, f.status = 'chunked'
RETURN count(f) AS assigned
