// The relationship types in one user's graph, with how many there are and between which labels.
// Parameters: $user_id.
MATCH (a {user_id: $user_id})-[r]->(b {user_id: $user_id})
RETURN type(r) AS relation, labels(a) AS from_labels, labels(b) AS to_labels, count(r) AS count
ORDER BY count DESC
