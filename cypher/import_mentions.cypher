// Recreates exported MENTIONS edges, once each.
UNWIND $rows AS row
MATCH (m:Memory {user_id: $user_id, id: row.memory_id})
MATCH (e:Entity {user_id: $user_id, key: row.key})
MERGE (m)-[r:MENTIONS]->(e)
SET r.as_speaker = row.as_speaker
RETURN count(r) AS count
