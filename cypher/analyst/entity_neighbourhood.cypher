// Answers: what is around one entity? Its typed relations to other entities (either direction) and
// the memories that mention it, relations first (most statements first), then the newest memories.
// Returns the path `p`, so Neo4j Browser draws the neighbourhood as a graph; the other columns are
// the same in table form. Times are epoch seconds. At most 200 rows.
// Parameters: $userId (whose graph, e.g. 'alice'), $key (entity key, e.g. 'person:mary').
MATCH p = (e:Entity {user_id: $userId, key: $key})-[r]-(n)
WHERE n.user_id = $userId
RETURN p, type(r) AS relation,
  CASE WHEN startNode(r) = e THEN 'out' ELSE 'in' END AS direction,
  coalesce(n.key, n.id) AS neighbour, coalesce(n.label, n.text) AS label,
  r.role AS role, r.count AS count, coalesce(r.last_seen, n.occurred_at) AS last_seen
ORDER BY type(r) = 'MENTIONS', r.count DESC, last_seen DESC
LIMIT 200
