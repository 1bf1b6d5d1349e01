// Full scan: any node left that belongs to this user (any label).
MATCH (n) WHERE n.tenant = $tenant AND n.user_id = $user_id
RETURN count(n) AS remaining
