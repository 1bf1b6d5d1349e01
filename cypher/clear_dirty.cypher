// The Facts a consolidation read as touched are consolidated now.
UNWIND $ids AS id
MATCH (f:Fact {fact_id: id}) WHERE f.tenant = $tenant
REMOVE f.dirty
RETURN count(f) AS cleared
