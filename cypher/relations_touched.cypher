// The relations a write just changed, read back for the copy the service holds in process
// (graph/relation_facts.py): every relation between the batch's $pairs ([source, target] keys),
// every one-value fact of the $sources (the write recomputed their validity), and every relation
// of the $around entities in either direction (an entity merge moved them). The copy replaces
// exactly what these cover with the rows, so it equals the graph after the write.
UNWIND $pairs AS p
MATCH (a:Entity {user_id: $user_id, key: p[0]})
WITH a, p
MATCH (b:Entity {user_id: $user_id, key: p[1]})
// both ends found first, so the engine looks up the edges between them (an expand-into) instead
// of walking every relationship of the source: 100 pairs of a 14k-memory user's own entity took
// 10 s the other way, 10 ms this way (FalkorDB)
WITH a, b
MATCH (a)-[r]->(b)
RETURN a.key AS source, type(r) AS type, b.key AS target, r.count AS count, r.strong AS strong,
  r.role AS role, r.first_seen AS first_seen, r.last_seen AS last_seen,
  r.valid_from AS valid_from, r.valid_to AS valid_to, r.evidence AS evidence
UNION ALL
UNWIND $sources AS s
MATCH (a:Entity {user_id: $user_id, key: s})-[r]->(b:Entity {user_id: $user_id})
WHERE type(r) IN $single_valued_types
RETURN a.key AS source, type(r) AS type, b.key AS target, r.count AS count, r.strong AS strong,
  r.role AS role, r.first_seen AS first_seen, r.last_seen AS last_seen,
  r.valid_from AS valid_from, r.valid_to AS valid_to, r.evidence AS evidence
UNION ALL
UNWIND $around AS k
MATCH (a:Entity {user_id: $user_id, key: k})-[r]->(b:Entity {user_id: $user_id})
RETURN a.key AS source, type(r) AS type, b.key AS target, r.count AS count, r.strong AS strong,
  r.role AS role, r.first_seen AS first_seen, r.last_seen AS last_seen,
  r.valid_from AS valid_from, r.valid_to AS valid_to, r.evidence AS evidence
UNION ALL
UNWIND $around AS k
MATCH (a:Entity {user_id: $user_id})-[r]->(b:Entity {user_id: $user_id, key: k})
RETURN a.key AS source, type(r) AS type, b.key AS target, r.count AS count, r.strong AS strong,
  r.role AS role, r.first_seen AS first_seen, r.last_seen AS last_seen,
  r.valid_from AS valid_from, r.valid_to AS valid_to, r.evidence AS evidence
