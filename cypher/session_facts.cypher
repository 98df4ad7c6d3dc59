// Typed relations first seen in one session: their first evidence is one of its turns. Reached
// from the entities its turns mention, at either end (a turn that backs a relation mentions an
// end of it, as coverage_relations.cypher reads them), not by scanning every relation of the
// user: that scan made ending a session cost in proportion to the whole history. Each entity's
// relations are read once. Ordered by graph/store.py (first seen, then the labels and keys):
// a UNION's parts cannot be ordered together.
MATCH (m:Memory {user_id: $user_id})-[:IN_SESSION]->(:Session {user_id: $user_id, id: $session_id})
WITH collect(m) AS turns, collect(m.id) AS ids
UNWIND turns AS m
MATCH (m)-[:MENTIONS]->(a:Entity)
WITH DISTINCT a, ids
MATCH (a)-[r]->(b:Entity {user_id: $user_id})
WHERE type(r) <> 'RELATED_TO' AND r.evidence[0] IN ids
RETURN a.key AS src_key, a.label AS src, type(r) AS type, b.key AS dst_key, b.label AS dst,
  b.type AS dst_type, r.role AS role, r.evidence[0] AS evidence, r.first_seen AS first_seen
UNION
MATCH (m:Memory {user_id: $user_id})-[:IN_SESSION]->(:Session {user_id: $user_id, id: $session_id})
WITH collect(m) AS turns, collect(m.id) AS ids
UNWIND turns AS m
MATCH (m)-[:MENTIONS]->(b:Entity)
WITH DISTINCT b, ids
MATCH (b)<-[r]-(a:Entity {user_id: $user_id})
WHERE type(r) <> 'RELATED_TO' AND r.evidence[0] IN ids
RETURN a.key AS src_key, a.label AS src, type(r) AS type, b.key AS dst_key, b.label AS dst,
  b.type AS dst_type, r.role AS role, r.evidence[0] AS evidence, r.first_seen AS first_seen
