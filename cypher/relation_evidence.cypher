// Evidence memory ids of the given entities' relations of the given types (both directions), for
// relation-aware retrieval: "where does Mary work?" follows Mary's WORKS_AT relations.
MATCH (e:Entity {user_id: $user_id})-[r]-(o:Entity {user_id: $user_id})
WHERE e.key IN $keys AND type(r) IN $types
RETURN e.key AS key, type(r) AS type, o.key AS target, r.evidence AS evidence
