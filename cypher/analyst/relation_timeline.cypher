// Answers: how did an entity's relations change over time? Each typed relation of the entity
// (either direction) with when it was first and last seen (epoch seconds), how long it has been
// observed (days), how often it was stated, and how many of those statements are pinned or
// important. Ordered by first appearance, so new relations (a new employer, a move) read top to
// bottom.
// Parameters: $userId (whose graph, e.g. 'alice'), $key (entity key, e.g. 'person:mary').
MATCH (e:Entity {user_id: $userId, key: $key})-[r]-(o:Entity {user_id: $userId})
RETURN r.first_seen AS first_seen, r.last_seen AS last_seen,
  (r.last_seen - r.first_seen) / 86400.0 AS span_days, type(r) AS relation,
  CASE WHEN startNode(r) = e THEN 'out' ELSE 'in' END AS direction,
  o.key AS other, o.label AS label, r.role AS role, r.count AS count, r.strong AS strong,
  size(r.evidence) AS evidence
ORDER BY first_seen, last_seen, relation, other
