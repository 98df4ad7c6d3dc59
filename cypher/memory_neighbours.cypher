// The turns just before and after each given memory in its session (the NEXT chain).
MATCH (m:Memory {user_id: $user_id})
WHERE m.id IN $ids
OPTIONAL MATCH (before:Memory)-[:NEXT]->(m)
OPTIONAL MATCH (m)-[:NEXT]->(after:Memory)
RETURN m.id AS id, before.id AS before, after.id AS after
