// Typed relations first seen in one session: their first evidence is one of its turns.
MATCH (m:Memory {user_id: $user_id})-[:IN_SESSION]->(:Session {user_id: $user_id, id: $session_id})
WITH collect(m.id) AS ids
MATCH (a:Entity {user_id: $user_id})-[r]->(b:Entity {user_id: $user_id})
WHERE type(r) <> 'RELATED_TO' AND r.evidence[0] IN ids
RETURN a.label AS src, type(r) AS type, b.label AS dst, b.type AS dst_type, r.role AS role,
       r.evidence[0] AS evidence
ORDER BY r.first_seen, src, type, dst
