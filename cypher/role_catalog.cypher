// Every person one user's people are linked to by role ("sister", "husband"), so that "my sister"
// in a later text resolves to the sister the graph knows.
MATCH (owner:Entity {user_id: $user_id})-[r]->(p:Entity {user_id: $user_id, type: 'person'})
WHERE r.role IS NOT NULL
RETURN owner.key AS owner, r.role AS role, p.key AS key
