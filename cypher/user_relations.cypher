// Every relation between one user's entities with what a context card shows of it, for the copy
// the service holds in process (graph/relation_facts.py): read once per user and process, beside
// the memory facts, and again after a change the copy does not follow (a forget, a pin, a write
// from another process). Outgoing relationships of an entity are only relations between entities
// (MENTIONS point into them), so this walks no memory.
MATCH (a:Entity {user_id: $user_id})-[r]->(b:Entity {user_id: $user_id})
RETURN a.key AS source, type(r) AS type, b.key AS target, r.count AS count, r.strong AS strong,
  r.role AS role, r.first_seen AS first_seen, r.last_seen AS last_seen,
  r.valid_from AS valid_from, r.valid_to AS valid_to, r.evidence AS evidence
