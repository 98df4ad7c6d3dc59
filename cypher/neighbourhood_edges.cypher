// The relations among the explorer's entities $keys that pass the view's filters (the same as
// neighbourhood_step's), strongest first, at most $limit: type, source and target keys, role,
// how often it was stated, validity and its newest $evidence memory ids (oldest first).
MATCH (a:Entity {user_id: $user_id})
WHERE a.key IN $keys
MATCH (a)-[r]->(b:Entity {user_id: $user_id})
WHERE b.key IN $keys
  AND ($all_types OR type(r) IN $types)
  AND (NOT $current OR r.valid_to IS NULL)
  AND coalesce(r.valid_from, r.first_seen, $since) <= $until
  AND CASE WHEN r.valid_from IS NOT NULL AND r.valid_to IS NULL THEN $until
    ELSE coalesce(r.valid_to, r.last_seen, $until) END >= $since
RETURN type(r) AS type, a.key AS source, b.key AS target, r.role AS role, r.count AS count,
  r.strong AS strong, r.first_seen AS first_seen, r.last_seen AS last_seen,
  r.valid_from AS valid_from, r.valid_to AS valid_to,
  CASE WHEN size(r.evidence) > $evidence
    THEN r.evidence[size(r.evidence) - $evidence..] ELSE r.evidence END AS evidence
ORDER BY strong DESC, count DESC, source, target, type
LIMIT $limit
