// The typed relations the turns $ids (one session's, or one UTC day's without a session) back,
// with those turns among their evidence, for that occasion's share of the knowledge index
// (graph/profile/coverage_tally.py). Reached from the entities the turns mention, at either end
// of the relation, so the read never scans the user's relations.
MATCH (m:Memory {user_id: $user_id})
WHERE m.id IN $ids
MATCH (m)-[:MENTIONS]->(a:Entity)-[r]->(b:Entity {user_id: $user_id})
WHERE type(r) <> 'RELATED_TO' AND m.id IN r.evidence
RETURN a.key AS src_key, a.label AS src, type(r) AS type, b.key AS dst_key, b.label AS dst,
  b.type AS dst_type, collect(DISTINCT m.id) AS evidence
UNION
MATCH (m:Memory {user_id: $user_id})
WHERE m.id IN $ids
MATCH (m)-[:MENTIONS]->(b:Entity)<-[r]-(a:Entity {user_id: $user_id})
WHERE type(r) <> 'RELATED_TO' AND m.id IN r.evidence
RETURN a.key AS src_key, a.label AS src, type(r) AS type, b.key AS dst_key, b.label AS dst,
  b.type AS dst_type, collect(DISTINCT m.id) AS evidence
