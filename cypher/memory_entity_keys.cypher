// The entity keys each of the given memories mentions.
MATCH (m:Memory {user_id: $user_id})-[:MENTIONS]->(e:Entity)
WHERE m.id IN $ids
RETURN m.id AS id, collect(e.key) AS keys
