// Evidence memory ids of the given entities' relations of the given types (both directions), for
// relation-aware retrieval: "where does Mary work?" follows Mary's WORKS_AT relations. Only the
// newest $limit ids of each relation (evidence is appended in write order): a relation restated
// for years has thousands, and every one would become a candidate of every such question.
// Strength and count come along so that the caller can take the strongest relations first, and
// valid_to (set once a newer value superseded a one-value-at-a-time fact) so that a question about
// the present prefers the current value's evidence and one about the past the older one's.
MATCH (e:Entity {user_id: $user_id})-[r]-(o:Entity {user_id: $user_id})
WHERE e.key IN $keys AND type(r) IN $types
RETURN e.key AS key, type(r) AS type, o.key AS target, r.strong AS strong, r.count AS count,
  startNode(r).key AS src, r.valid_to AS valid_to, r.evidence[-$limit..] AS evidence
