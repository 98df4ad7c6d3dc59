// Answers: which memories say how two entities are related? Every relation between $src and $dst
// (either direction, any type) with each memory listed in its `evidence`, oldest first.
// occurred_at is in epoch seconds.
// Parameters: $userId (whose graph, e.g. 'alice'), $src and $dst (entity keys, e.g. 'person:mary',
// 'place:boston').
MATCH (a:Entity {user_id: $userId, key: $src})-[r]-(b:Entity {user_id: $userId, key: $dst})
UNWIND r.evidence AS memory_id
MATCH (m:Memory {user_id: $userId, id: memory_id})
RETURN type(r) AS relation,
  CASE WHEN startNode(r) = a THEN a.key ELSE b.key END AS source,
  CASE WHEN startNode(r) = a THEN b.key ELSE a.key END AS target,
  r.role AS role, m.id AS memory_id, m.occurred_at AS occurred_at, m.speaker AS speaker,
  m.text AS text
ORDER BY m.occurred_at, relation
