// Entity cards by key, in one statement (one round trip on Bolt): each entity's own properties and
// its typed relations in both directions, strongest first — per entity at most $limit of them,
// plus every one whose type is in $types (the relation types a context message cues). A hub
// entity (the user) has a relation to nearly everything; context cards need its strongest few, not
// all of them on every call. Each relation carries its newest $evidence memory ids and, for a
// one-value-at-a-time fact, when it held (valid_to is null while it still does). One row per
// relation; an entity without relations has one row whose relation columns are null. The keys in
// $bare get their own properties only: their relations are not traversed at all (a hub's
// thousands, when the context message asks nothing of them; the guard runs before the traversal).
MATCH (e:Entity {user_id: $user_id})
WHERE e.key IN $keys
OPTIONAL MATCH (e)-[r]-(o:Entity {user_id: $user_id})
WHERE NOT e.key IN $bare
WITH e, r, o
ORDER BY r.strong DESC, r.count DESC, r.last_seen DESC, type(r), o.key
WITH e, collect(CASE WHEN r IS NULL THEN NULL ELSE [r, o] END) AS pairs
WITH e, pairs,
  [i IN range(0, size(pairs) - 1) WHERE i < $limit OR type(pairs[i][0]) IN $types] AS kept
UNWIND CASE WHEN size(kept) = 0 THEN [-1] ELSE kept END AS i
WITH e, i, CASE WHEN i < 0 THEN NULL ELSE pairs[i][0] END AS r,
  CASE WHEN i < 0 THEN NULL ELSE pairs[i][1] END AS o
RETURN e.key AS key, e.type AS entity_type, e.label AS label, e.aliases AS aliases,
  e.mention_count AS mention_count, e.first_seen AS entity_first_seen,
  e.last_seen AS entity_last_seen,
  type(r) AS type,
  CASE WHEN r IS NULL THEN NULL WHEN startNode(r) = e THEN 'out' ELSE 'in' END AS direction,
  o.key AS target, r.count AS count, r.strong AS strong, r.role AS role,
  r.first_seen AS first_seen, r.last_seen AS last_seen, r.valid_from AS valid_from,
  r.valid_to AS valid_to,
  CASE WHEN r IS NULL THEN NULL WHEN size(r.evidence) > $evidence
    THEN r.evidence[size(r.evidence) - $evidence..] ELSE r.evidence END AS evidence
ORDER BY key, i
