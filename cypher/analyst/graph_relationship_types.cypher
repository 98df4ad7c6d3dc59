// Answers: which relationship types does one user's graph hold? Each type with how many there are
// and between which labels.
// Parameters: $userId (whose graph, e.g. 'alice').
MATCH (a {user_id: $userId})-[r]->(b {user_id: $userId})
RETURN type(r) AS relation, labels(a) AS from_labels, labels(b) AS to_labels, count(r) AS count
ORDER BY count DESC
