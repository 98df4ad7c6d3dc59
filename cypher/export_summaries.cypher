// Every SUMMARIZED_BY edge (session -> episode memory) of one user, for `recollect export`.
MATCH (s:Session {user_id: $user_id})-[:SUMMARIZED_BY]->(m:Memory)
RETURN s.id AS session_id, m.id AS memory_id
