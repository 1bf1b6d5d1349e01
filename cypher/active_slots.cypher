// The slots of a user's active Facts (to match a later, less qualified name of one).
MATCH (f:Fact)
WHERE f.tenant = $tenant AND f.user_id = $user_id AND f.validity = 'active'
  AND f.slot IS NOT NULL
RETURN DISTINCT f.slot AS slot
