// GUMem schema. Applied idempotently at start-up (graph.schema.apply_schema).
// Full-text indexes carry `scope` (a per-user token) so a search is filtered inside
// Lucene to one tenant's user.
CREATE CONSTRAINT message_uid IF NOT EXISTS FOR (n:Message) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT fact_id IF NOT EXISTS FOR (n:Fact) REQUIRE n.fact_id IS UNIQUE;
CREATE CONSTRAINT summary_id IF NOT EXISTS FOR (n:Summary) REQUIRE n.summary_id IS UNIQUE;
CREATE CONSTRAINT topic_id IF NOT EXISTS FOR (n:Topic) REQUIRE n.topic_id IS UNIQUE;
CREATE CONSTRAINT entity_id IF NOT EXISTS FOR (n:Entity) REQUIRE n.entity_id IS UNIQUE;
CREATE CONSTRAINT session_uid IF NOT EXISTS FOR (n:Session) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT user_uid IF NOT EXISTS FOR (n:User) REQUIRE n.uid IS UNIQUE;
CREATE CONSTRAINT audit_id IF NOT EXISTS FOR (n:AuditRecord) REQUIRE n.audit_id IS UNIQUE;
CREATE INDEX message_scope IF NOT EXISTS FOR (n:Message) ON (n.tenant, n.user_id);
CREATE INDEX message_status IF NOT EXISTS FOR (n:Message) ON (n.status);
CREATE INDEX message_time IF NOT EXISTS FOR (n:Message) ON (n.timestamp);
CREATE INDEX message_session IF NOT EXISTS FOR (n:Message) ON (n.tenant, n.session_id);
CREATE INDEX user_unconsolidated IF NOT EXISTS FOR (n:User) ON (n.unconsolidated_at);
CREATE INDEX fact_scope IF NOT EXISTS FOR (n:Fact) ON (n.tenant, n.user_id);
CREATE INDEX fact_key IF NOT EXISTS FOR (n:Fact) ON (n.tenant, n.user_id, n.key);
// Consolidation and fact writes read only what a batch touched (issue 19): its dirty facts,
// the facts of its Topics, of its slots and near its time, never the whole history.
CREATE INDEX fact_dirty IF NOT EXISTS FOR (n:Fact) ON (n.tenant, n.user_id, n.dirty);
CREATE INDEX fact_topic IF NOT EXISTS FOR (n:Fact) ON (n.tenant, n.user_id, n.topic);
CREATE INDEX fact_slot IF NOT EXISTS FOR (n:Fact) ON (n.tenant, n.user_id, n.slot);
CREATE INDEX fact_time IF NOT EXISTS FOR (n:Fact) ON (n.tenant, n.user_id, n.time_end);
CREATE INDEX summary_topic IF NOT EXISTS FOR (n:Summary) ON (n.tenant, n.user_id, n.topic);
CREATE INDEX message_pending IF NOT EXISTS FOR (n:Message) ON (n.tenant, n.user_id, n.status);
CREATE INDEX message_user_time IF NOT EXISTS FOR (n:Message) ON (n.tenant, n.user_id, n.timestamp);
CREATE INDEX summary_scope IF NOT EXISTS FOR (n:Summary) ON (n.tenant, n.user_id);
CREATE INDEX topic_scope IF NOT EXISTS FOR (n:Topic) ON (n.tenant, n.user_id);
CREATE INDEX entity_scope IF NOT EXISTS FOR (n:Entity) ON (n.tenant, n.user_id);
CREATE INDEX audit_tenant IF NOT EXISTS FOR (n:AuditRecord) ON (n.tenant);
CREATE FULLTEXT INDEX fact_text IF NOT EXISTS FOR (n:Fact) ON EACH [n.content, n.scope] OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk'}};
CREATE FULLTEXT INDEX summary_text IF NOT EXISTS FOR (n:Summary) ON EACH [n.content, n.topic, n.scope] OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk'}};
// A Message is found by its author's name too (metadata speaker / name / display name);
// message_text (content only) is replaced by message_search.
DROP INDEX message_text IF EXISTS;
CREATE FULLTEXT INDEX message_search IF NOT EXISTS FOR (n:Message) ON EACH [n.content, n.author, n.scope] OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk'}};
// Recall takes exact cosine over one user's nodes (found by the scope indexes); vector
// indexes were never queried and cost every write, so deployments made before drop them.
DROP INDEX fact_embedding IF EXISTS;
DROP INDEX summary_embedding IF EXISTS;
DROP INDEX topic_embedding IF EXISTS;
DROP INDEX message_embedding IF EXISTS;
// No query searched Topics by text (topics are matched by name and embedding in Python).
DROP INDEX topic_text IF EXISTS;
// A user's active Facts newest first (issue 19): the conflict candidates a batch reads
// (cypher/conflict_candidates.cypher, LIMIT in this order) and the older active Facts a
// retraction may supersede, without reading the superseded part of the history.
CREATE INDEX fact_active_time IF NOT EXISTS FOR (n:Fact) ON (n.tenant, n.user_id, n.validity, n.valid_from);
