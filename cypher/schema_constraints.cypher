// The node constraints in place: what the start-up migration compares with the models.
SHOW CONSTRAINTS YIELD id, name, type, entityType, labelsOrTypes, properties
WHERE entityType = 'NODE'
RETURN id, name, type, labelsOrTypes AS labels, properties, 'ONLINE' AS state
