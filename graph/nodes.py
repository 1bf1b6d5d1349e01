"""The graph's node and relationship types (neomodel), one class per label: the schema.

The classes declare each label's properties, its uniqueness constraints
(``unique_index=True``) and its single-property indexes (``index=True``); graph/schema.py
installs them through neomodel at start-up. What neomodel cannot declare stays in
cypher/schema.cypher: composite indexes, and the full-text indexes, which each span several
properties (the per-user ``scope`` token among them) with the ``cjk`` analyzer, while
neomodel's ``FulltextIndex`` covers one property. No vector index is declared: recall takes
exact cosine over one user's nodes, found by the scope indexes (``VectorIndex`` unused).
Writes go through the batched Cypher in cypher/ (graph/ingest.py and friends); the classes
are read through on the admin path (graph/admin_reads.py: one node by id, `gumem show`).
"""

from __future__ import annotations

from neomodel import (
    ArrayProperty,
    AsyncRelationshipFrom,
    AsyncRelationshipTo,
    AsyncStructuredNode,
    BooleanProperty,
    DateTimeNeo4jFormatProperty,
    FloatProperty,
    IntegerProperty,
    StringProperty,
)


class Scoped(AsyncStructuredNode):
    """Every node belongs to one tenant and (except audit records) one user."""

    __abstract_node__ = True
    tenant = StringProperty(required=True)
    user_id = StringProperty()


class User(Scoped):
    uid = StringProperty(required=True, unique_index=True)  # tenant|user_id
    created_at = DateTimeNeo4jFormatProperty()
    unconsolidated_at = DateTimeNeo4jFormatProperty(index=True)  # consolidation is due
    generation = IntegerProperty()  # bumped by a user's erasure (the fence)
    lease_owner = StringProperty(index=True)  # the worker processing the user
    lease_token = IntegerProperty()
    lease_expires = DateTimeNeo4jFormatProperty()


class Session(Scoped):
    uid = StringProperty(required=True, unique_index=True)  # tenant|user_id|session_id
    session_id = StringProperty(required=True)
    user = AsyncRelationshipTo(User, "OF_USER")


class Message(Scoped):
    uid = StringProperty(required=True, unique_index=True)  # tenant|message_id
    message_id = StringProperty(required=True)
    session_id = StringProperty(required=True)
    role = StringProperty(required=True)  # user/assistant/system/tool/event
    content = StringProperty(required=True)
    author = StringProperty()  # the speaker's name from metadata, searched with the content
    scope = StringProperty()  # per-user token of the full-text indexes
    timestamp = DateTimeNeo4jFormatProperty(required=True, index=True)
    event_type = StringProperty(default="message")
    page = StringProperty()
    metadata_json = StringProperty(default="{}")
    ingested_at = DateTimeNeo4jFormatProperty()
    lang = StringProperty()
    status = StringProperty(default="pending", index=True)  # pending → processed | failed
    fail_reason = StringProperty()
    attempts = IntegerProperty()
    last_attempt_at = DateTimeNeo4jFormatProperty()
    next_attempt_at = DateTimeNeo4jFormatProperty()
    processed_at = DateTimeNeo4jFormatProperty()
    processed_count = IntegerProperty()
    processed_by = StringProperty()
    embedding = ArrayProperty(FloatProperty())
    session = AsyncRelationshipTo(Session, "IN_SESSION")
    facts = AsyncRelationshipFrom("Fact", "SOURCE")


class Entity(Scoped):
    """Two kinds share the label. A spaCy entity a Fact or Summary MENTIONS (`type`: its NER
    label, `entity_id` "e_…"). An entity of the user's world a Fact is ABOUT (`world`: true,
    `entity_id` "w_…", one per user and `normalized` key): a person, pet, event, place,
    organisation or item (`kind`), with the names it goes by (`aliases`) and their match
    forms (`terms`, graph/entities.py)."""

    entity_id = StringProperty(required=True, unique_index=True)
    name = StringProperty(required=True)
    normalized = StringProperty(required=True)
    type = StringProperty()  # a spaCy entity's NER label
    world = BooleanProperty()  # an entity of the user's world (a Fact's subject)
    kind = StringProperty()  # person / pet / event / place / org / item / thing
    aliases = ArrayProperty(StringProperty(), default=list)
    terms = ArrayProperty(StringProperty(), default=list)
    created_at = DateTimeNeo4jFormatProperty()
    updated_at = DateTimeNeo4jFormatProperty()


class Fact(Scoped):
    fact_id = StringProperty(required=True, unique_index=True)
    key = StringProperty(required=True)
    content = StringProperty(required=True)
    kind = StringProperty(required=True)
    slot = StringProperty()
    value = StringProperty()
    polarity = StringProperty(default="neutral")
    explicit = BooleanProperty(default=True)
    confidence = FloatProperty(default=1.0)
    validity = StringProperty(default="active")  # active / superseded / deleted
    status = StringProperty(default="pending")  # pending → chunked → processed | failed
    # `labels` is neomodel's method name: the property keeps its name in the graph
    fact_labels = ArrayProperty(StringProperty(), default=list, db_property="labels")
    entities = ArrayProperty(StringProperty(), default=list)
    subject = StringProperty()  # whom it is about when not the user (its Entity's name)
    subject_kind = StringProperty()  # "user", or the Entity's kind
    source_message_ids = ArrayProperty(StringProperty(), default=list)
    anchors = ArrayProperty(StringProperty(), default=list)
    event_types = ArrayProperty(StringProperty(), default=list)
    session_ids = ArrayProperty(StringProperty(), default=list)
    time_start = DateTimeNeo4jFormatProperty()
    time_end = DateTimeNeo4jFormatProperty()
    valid_from = DateTimeNeo4jFormatProperty()
    valid_to = DateTimeNeo4jFormatProperty()
    superseded_at = DateTimeNeo4jFormatProperty()
    created_at = DateTimeNeo4jFormatProperty()
    lang = StringProperty()
    topic = StringProperty()
    scope = StringProperty()  # per-user token of the full-text indexes
    dirty = BooleanProperty()  # touched since the last consolidation
    embedding = ArrayProperty(FloatProperty())
    sources = AsyncRelationshipTo(Message, "SOURCE")
    mentions = AsyncRelationshipTo(Entity, "MENTIONS")
    about = AsyncRelationshipTo(Entity, "ABOUT")  # its subject when not the user
    supersedes = AsyncRelationshipTo("Fact", "SUPERSEDES")
    summaries = AsyncRelationshipTo("Summary", "SUPPORTS")


class Topic(Scoped):
    topic_id = StringProperty(required=True, unique_index=True)
    name = StringProperty(required=True)
    aliases_text = StringProperty()
    embedding = ArrayProperty(FloatProperty())
    summary_count = IntegerProperty(default=0)
    fact_count = IntegerProperty(default=0)


class Summary(Scoped):
    summary_id = StringProperty(required=True, unique_index=True)
    key = StringProperty(required=True)
    content = StringProperty(required=True)
    topic = StringProperty(required=True)
    kind = StringProperty()
    source_facts = ArrayProperty(StringProperty(), default=list)
    confidence = FloatProperty(default=1.0)
    event_start = DateTimeNeo4jFormatProperty()
    event_end = DateTimeNeo4jFormatProperty()
    summary_labels = ArrayProperty(StringProperty(), default=list, db_property="labels")
    entities = ArrayProperty(StringProperty(), default=list)
    decay_factor = FloatProperty(default=0.01)
    validity = StringProperty(default="active")  # active / invalid / deprecated
    memory_status = StringProperty(default="active")  # active/deprioritized/archived/deleted
    retrieval_boost = FloatProperty(default=1.0)
    evidence_json = StringProperty(default="{}")
    anchors = ArrayProperty(StringProperty(), default=list)
    subject = StringProperty()  # the entity of the user's world it speaks of; None: the user
    subject_kind = StringProperty()
    embedding = ArrayProperty(FloatProperty())
    created_at = DateTimeNeo4jFormatProperty()
    updated_at = DateTimeNeo4jFormatProperty()
    version = IntegerProperty(default=1)
    lang = StringProperty()
    scope = StringProperty()  # per-user token of the full-text indexes
    weight = FloatProperty()
    in_topic = AsyncRelationshipTo(Topic, "IN_TOPIC")
    mentions = AsyncRelationshipTo(Entity, "MENTIONS")
    supersedes = AsyncRelationshipTo("Summary", "SUPERSEDES")
    superseded_by = AsyncRelationshipFrom("Summary", "SUPERSEDES")
    facts = AsyncRelationshipFrom(Fact, "SUPPORTS")


class AuditRecord(AsyncStructuredNode):
    """A deletion's trace: who (tenant), what ids and counts, when. Never content."""

    audit_id = StringProperty(required=True, unique_index=True)
    tenant = StringProperty(required=True, index=True)
    action = StringProperty(required=True)
    target = StringProperty(required=True)
    counts_json = StringProperty(default="{}")
    ids = ArrayProperty(StringProperty(), default=list)
    at = DateTimeNeo4jFormatProperty(required=True)


class Foreground(AsyncStructuredNode):
    """An API process serving agents: workers yield while `until` is ahead (issue 19)."""

    source = StringProperty(required=True, unique_index=True)  # host:pid:random
    until = DateTimeNeo4jFormatProperty(required=True)


LABELS = ("Message", "Fact", "Summary", "Topic", "Entity", "Session", "User")
"""The labels of a user's data (an erasure counts and deletes these)."""

SCHEMA_LABELS = frozenset(
    {
        "User",
        "Session",
        "Message",
        "Entity",
        "Fact",
        "Topic",
        "Summary",
        "AuditRecord",
        "Foreground",
    }
)
"""The schema's labels, one per class of NODE_CLASSES: the only ones a query's text may
name where a label cannot be a $param (graph/deletion.py `label_query`)."""

NODE_CLASSES: tuple[type[AsyncStructuredNode], ...] = (
    User,
    Session,
    Message,
    Entity,
    Fact,
    Topic,
    Summary,
    AuditRecord,
    Foreground,
)
"""Every label the graph uses, in the order the schema is installed."""
