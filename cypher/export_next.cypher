// Every NEXT edge (session turn order) between one user's memories, for `recollect export`.
MATCH (a:Memory {user_id: $user_id})-[:NEXT]->(b:Memory)
RETURN a.id AS from, b.id AS to
