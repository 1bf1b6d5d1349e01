// The slots of a user's active Facts that start with one of $heads (to match a later,
// less qualified name of one: "prescription" → "prescription:glass"). A prefix seek on
// the fact_slot index per head: bounded by those slots, not by the user's history.
UNWIND $heads AS head
MATCH (f:Fact)
USING INDEX f:Fact(tenant, user_id, slot)
WHERE f.tenant = $tenant AND f.user_id = $user_id AND f.slot STARTS WITH head
  AND f.validity = 'active'
RETURN DISTINCT f.slot AS slot
