"""The Cypher of GUMem, as package data: one named query per ``.cypher`` file (values as
``$params``), ``schema.cypher`` for what the neomodel models cannot declare, and ``browser/``
(Neo4j Browser's style sheet and guide, served by the API).

No Python lives here: graph/queries.py loads the queries; api/app.py serves ``browser/``.
"""
