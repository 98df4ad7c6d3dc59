// Every typed relation of one user with its evidence (the knowledge index keeps the evidence in
// the domain it is built for).
MATCH (a:Entity {user_id: $user_id})-[r]->(b:Entity {user_id: $user_id})
WHERE type(r) <> 'RELATED_TO'
RETURN a.label AS src, type(r) AS type, b.label AS dst, b.type AS dst_type, r.evidence AS evidence
