MATCH (m:Message) WHERE m.uid IN $uids
SET m.status = 'processed', m.processed_at = $now
RETURN count(m) AS n
