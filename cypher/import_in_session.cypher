// Recreates exported IN_SESSION edges, once each.
UNWIND $rows AS row
MATCH (m:Memory {user_id: $user_id, id: row.memory_id})
MATCH (s:Session {user_id: $user_id, id: row.session_id})
MERGE (m)-[r:IN_SESSION]->(s)
RETURN count(r) AS count
