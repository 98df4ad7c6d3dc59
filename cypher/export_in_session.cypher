// Every IN_SESSION edge (turn -> session) of one user, for `recollect export`.
MATCH (m:Memory {user_id: $user_id})-[:IN_SESSION]->(s:Session {user_id: $user_id})
RETURN m.id AS memory_id, s.id AS session_id
