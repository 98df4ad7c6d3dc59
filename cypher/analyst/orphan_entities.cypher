// Answers: which entities does no memory mention any more? Entities of a user without an incoming
// MENTIONS edge, with how many typed relations still touch them. Forgetting should leave none;
// rows here point at a bug or at data written by hand.
// Parameters: $userId (whose graph, e.g. 'alice').
MATCH (e:Entity {user_id: $userId})
OPTIONAL MATCH (e)<-[:MENTIONS]-(m:Memory)
WITH e, count(m) AS memories
WHERE memories = 0
OPTIONAL MATCH (e)-[r]-(:Entity)
RETURN e.key AS key, e.label AS label, e.type AS type, e.mention_count AS mention_count,
  e.first_seen AS first_seen, e.last_seen AS last_seen, count(r) AS relations
ORDER BY key
