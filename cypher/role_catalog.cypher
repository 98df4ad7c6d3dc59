// Every person or pet one user's people are linked to by role ("sister", "husband") or kind
// ("cat"), so that "my sister" or "my cat" in a later text resolves to the one the graph knows.
MATCH (owner:Entity {user_id: $user_id})-[r]->(p:Entity {user_id: $user_id})
WHERE r.role IS NOT NULL AND p.type IN ['person', 'pet']
RETURN owner.key AS owner, r.role AS role, p.key AS key
