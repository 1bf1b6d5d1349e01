// Shown to people, not run by GUMem: what came from a Message, in Neo4j Browser, pasted
// after `:param id => "<id>"` (graph/trace.py). Loaded by graph.queries.shown_query:
// comment lines left out, the other lines joined by one space.
MATCH p = (m:Message {message_id: $id})<-[:SOURCE]-(:Fact)-[:SUPPORTS]->(:Summary)-[:IN_TOPIC]->(:Topic)
RETURN p
UNION
MATCH p = (m:Message {message_id: $id})<-[:SOURCE]-(:Fact) RETURN p
