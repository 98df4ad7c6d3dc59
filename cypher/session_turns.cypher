// The turns of one session, in ingest order.
MATCH (m:Memory {user_id: $user_id})-[:IN_SESSION]->(:Session {user_id: $user_id, id: $session_id})
RETURN m.id AS id
ORDER BY m.created_at
