// Pins or unpins a memory and keeps the `strong` counter of the relations it backs in step
// (a relation is strong when a pinned or importance-3 memory is its evidence).
MATCH (m:Memory {user_id: $user_id, id: $id})
WITH m, (m.pinned OR m.importance >= 3) AS was_strong
SET m.pinned = $pinned
WITH m, was_strong, (m.pinned OR m.importance >= 3) AS is_strong
WITH m, CASE WHEN is_strong = was_strong THEN 0 WHEN is_strong THEN 1 ELSE -1 END AS delta
OPTIONAL MATCH (m)-[:MENTIONS]->(:Entity)-[r]->(:Entity)
WHERE $id IN r.evidence
WITH m, delta, collect(DISTINCT r) AS rels
FOREACH (r IN rels | SET r.strong = r.strong + delta)
RETURN m.id AS id
