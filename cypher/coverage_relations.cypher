// The typed relations the turns $ids (one session's, or one UTC day's without a session) back,
// with those turns among their evidence, for that occasion's share of the knowledge index
// (graph/profile/coverage_tally.py). Reached from the entities the turns mention, at either end
// of the relation, so the read never scans the user's relations; each entity's relations are
// read once for all the turns mentioning it (the speaker's are most of the user's).
MATCH (m:Memory {user_id: $user_id})
WHERE m.id IN $ids
MATCH (m)-[:MENTIONS]->(a:Entity)
WITH a, collect(DISTINCT m.id) AS own
MATCH (a)-[r]->(b:Entity {user_id: $user_id})
WHERE type(r) <> 'RELATED_TO'
WITH a, r, b, [i IN own WHERE i IN r.evidence] AS evidence
WHERE size(evidence) > 0
RETURN a.key AS src_key, a.label AS src, type(r) AS type, b.key AS dst_key, b.label AS dst,
  b.type AS dst_type, evidence
UNION
MATCH (m:Memory {user_id: $user_id})
WHERE m.id IN $ids
MATCH (m)-[:MENTIONS]->(b:Entity)
WITH b, collect(DISTINCT m.id) AS own
MATCH (b)<-[r]-(a:Entity {user_id: $user_id})
WHERE type(r) <> 'RELATED_TO'
WITH a, r, b, [i IN own WHERE i IN r.evidence] AS evidence
WHERE size(evidence) > 0
RETURN a.key AS src_key, a.label AS src, type(r) AS type, b.key AS dst_key, b.label AS dst,
  b.type AS dst_type, evidence
