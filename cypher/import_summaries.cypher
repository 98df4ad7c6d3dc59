// Recreates exported SUMMARIZED_BY edges, once each.
UNWIND $rows AS row
MATCH (s:Session {user_id: $user_id, id: row.session_id})
MATCH (m:Memory {user_id: $user_id, id: row.memory_id})
MERGE (s)-[r:SUMMARIZED_BY]->(m)
RETURN count(r) AS count
