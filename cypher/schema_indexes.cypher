// The node indexes in place (a constraint's own index left out), with their state.
SHOW INDEXES YIELD id, name, type, entityType, labelsOrTypes, properties, owningConstraint, state
WHERE entityType = 'NODE' AND owningConstraint IS NULL AND type <> 'LOOKUP'
RETURN id, name, type, labelsOrTypes AS labels, properties, state
