// Every MENTIONS edge of one user's memories, for `recollect export`.
MATCH (m:Memory {user_id: $user_id})-[r:MENTIONS]->(e:Entity)
RETURN m.id AS memory_id, e.key AS key, r.as_speaker AS as_speaker
