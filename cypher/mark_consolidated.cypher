// A consolidation that started at `started` covered every Fact of its user written before
// it. One row of $users per user (its uid, when its consolidation started).
UNWIND $users AS user
MATCH (u:User {uid: user.uid})
WHERE u.unconsolidated_at <= user.started
REMOVE u.unconsolidated_at
RETURN user.tenant AS tenant, user.user_id AS user_id
