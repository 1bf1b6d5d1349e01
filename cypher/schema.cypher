// GUMem schema: what the neomodel classes (graph/nodes.py) cannot declare. The classes
// declare the uniqueness constraints and single-property indexes; graph.schema.apply_schema
// installs them through neomodel, then runs this file (idempotent) at start-up.
// neomodel's `index=True` makes one single-property index: each composite index below stays here.
// Composite: one user's Messages (tenant, user_id), neomodel indexes one property.
CREATE INDEX message_scope IF NOT EXISTS FOR (n:Message) ON (n.tenant, n.user_id);
// Composite: a session's Messages (tenant, session_id).
CREATE INDEX message_session IF NOT EXISTS FOR (n:Message) ON (n.tenant, n.session_id);
// Composite: one user's Facts.
CREATE INDEX fact_scope IF NOT EXISTS FOR (n:Fact) ON (n.tenant, n.user_id);
// Composite: a user's Fact by its key.
CREATE INDEX fact_key IF NOT EXISTS FOR (n:Fact) ON (n.tenant, n.user_id, n.key);
// Consolidation and fact writes read only what a batch touched (issue 19): its dirty facts,
// the facts of its Topics, of its slots and near its time, never the whole history.
// Composite: a user's dirty Facts.
CREATE INDEX fact_dirty IF NOT EXISTS FOR (n:Fact) ON (n.tenant, n.user_id, n.dirty);
// Composite: a user's Facts of one Topic.
CREATE INDEX fact_topic IF NOT EXISTS FOR (n:Fact) ON (n.tenant, n.user_id, n.topic);
// Composite: a user's Facts of one slot.
CREATE INDEX fact_slot IF NOT EXISTS FOR (n:Fact) ON (n.tenant, n.user_id, n.slot);
// Composite: a user's Facts by end time.
CREATE INDEX fact_time IF NOT EXISTS FOR (n:Fact) ON (n.tenant, n.user_id, n.time_end);
// Composite: a user's Summaries of one Topic.
CREATE INDEX summary_topic IF NOT EXISTS FOR (n:Summary) ON (n.tenant, n.user_id, n.topic);
// Composite: a user's Summaries of one Topic, latest first (consolidation's recent ones).
CREATE INDEX summary_topic_time IF NOT EXISTS FOR (n:Summary) ON (n.tenant, n.user_id, n.topic, n.event_end);
// Composite: a user's pending Messages.
CREATE INDEX message_pending IF NOT EXISTS FOR (n:Message) ON (n.tenant, n.user_id, n.status);
// Composite: a user's Messages in time order.
CREATE INDEX message_user_time IF NOT EXISTS FOR (n:Message) ON (n.tenant, n.user_id, n.timestamp);
// Composite: one user's Summaries.
CREATE INDEX summary_scope IF NOT EXISTS FOR (n:Summary) ON (n.tenant, n.user_id);
// Composite: one user's Topics.
CREATE INDEX topic_scope IF NOT EXISTS FOR (n:Topic) ON (n.tenant, n.user_id);
// Composite: one user's Entities.
CREATE INDEX entity_scope IF NOT EXISTS FOR (n:Entity) ON (n.tenant, n.user_id);
// Composite: one user's world entities (what a Fact is ABOUT), apart from the spaCy ones:
// read by recall (names in the query) and the `entities` query.
CREATE INDEX entity_world IF NOT EXISTS FOR (n:Entity) ON (n.tenant, n.user_id, n.world);
// Full-text indexes carry `scope` (a per-user token) so a search is filtered inside Lucene to
// one tenant's user; neomodel's FulltextIndex covers one property, these span several.
// Full-text over content + scope with the cjk analyzer (several properties: not neomodel's).
CREATE FULLTEXT INDEX fact_text IF NOT EXISTS FOR (n:Fact) ON EACH [n.content, n.scope] OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk'}};
// Full-text over content + topic + scope, cjk (several properties: not neomodel's).
CREATE FULLTEXT INDEX summary_text IF NOT EXISTS FOR (n:Summary) ON EACH [n.content, n.topic, n.scope] OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk'}};
// A Message is found by its author's name too (metadata speaker / name / display name);
// message_text (content only) is replaced by message_search.
DROP INDEX message_text IF EXISTS;
// Full-text over content + author + scope, cjk (several properties: not neomodel's).
CREATE FULLTEXT INDEX message_search IF NOT EXISTS FOR (n:Message) ON EACH [n.content, n.author, n.scope] OPTIONS {indexConfig: {`fulltext.analyzer`: 'cjk'}};
// Recall takes exact cosine over one user's nodes (found by the scope indexes); vector
// indexes were never queried and cost every write, so deployments made before drop them
// (and the models declare no VectorIndex).
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
