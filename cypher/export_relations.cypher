// Every typed relation between one user's entities with its properties, for `recollect export`.
MATCH (a:Entity {user_id: $user_id})-[r]->(b:Entity {user_id: $user_id})
RETURN a.key AS src, type(r) AS type, b.key AS dst, r {.*} AS props
