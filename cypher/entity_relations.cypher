// Typed relations touching the given entities, in both directions, strongest first.
MATCH (e:Entity {user_id: $user_id})-[r]-(o:Entity {user_id: $user_id})
WHERE e.key IN $keys
RETURN e.key AS key, type(r) AS type,
  CASE WHEN startNode(r) = e THEN 'out' ELSE 'in' END AS direction,
  o.key AS target, r.count AS count, r.strong AS strong, r.role AS role,
  r.first_seen AS first_seen, r.last_seen AS last_seen
ORDER BY r.strong DESC, r.count DESC, r.last_seen DESC, type(r), target
