// Answers: what is one user's graph made of? Each combination of node labels, how many nodes carry
// it, and a few example captions (entities: their label, memories: a short caption of the text).
// Parameters: $userId (whose graph, e.g. 'alice').
MATCH (n {user_id: $userId})
WITH labels(n) AS labels, n
ORDER BY n.caption
WITH labels, count(n) AS nodes, collect(n.caption) AS captions
RETURN labels, nodes, captions[..3] AS examples
ORDER BY nodes DESC
