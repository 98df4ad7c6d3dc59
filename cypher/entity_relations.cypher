// Typed relations touching the given entities, in both directions, strongest first: per entity at
// most $limit of them, plus every one whose type is in $types (the relation types a context
// message cues). A hub entity (the user) has a relation to nearly everything; context cards need
// its strongest few, not all of them on every call. Each carries its newest $evidence memory ids
// and, for a one-value-at-a-time fact, when it held (valid_to is null while it still does).
MATCH (e:Entity {user_id: $user_id})-[r]-(o:Entity {user_id: $user_id})
WHERE e.key IN $keys
WITH e, r, o
ORDER BY r.strong DESC, r.count DESC, r.last_seen DESC, type(r), o.key
WITH e, collect([r, o]) AS pairs
UNWIND [i IN range(0, size(pairs) - 1) WHERE i < $limit OR type(pairs[i][0]) IN $types] AS i
WITH e, i, pairs[i][0] AS r, pairs[i][1] AS o
RETURN e.key AS key, type(r) AS type,
  CASE WHEN startNode(r) = e THEN 'out' ELSE 'in' END AS direction,
  o.key AS target, r.count AS count, r.strong AS strong, r.role AS role,
  r.first_seen AS first_seen, r.last_seen AS last_seen, r.valid_from AS valid_from,
  r.valid_to AS valid_to,
  CASE WHEN size(r.evidence) > $evidence THEN r.evidence[size(r.evidence) - $evidence..]
    ELSE r.evidence END AS evidence
ORDER BY key, i
