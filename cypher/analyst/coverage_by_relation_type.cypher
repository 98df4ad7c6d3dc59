// Answers: what kinds of fact does the memory hold about a user's life, and how much of each?
// Per typed relation: how many facts, how many distinct objects, how many memories back them,
// and how many of those memories name a time. The knowledge index's categories group these
// (graph/profile/coverage.py FACT_GROUPS).
// Parameters: $userId (whose graph, e.g. 'alice').
MATCH (a:Entity {user_id: $userId})-[r]->(b:Entity {user_id: $userId})
WHERE type(r) <> 'RELATED_TO'
UNWIND r.evidence AS id
MATCH (m:Memory {user_id: $userId, id: id})
WITH type(r) AS relation, count(DISTINCT r) AS facts, count(DISTINCT b) AS objects,
  count(DISTINCT m) AS memories,
  count(DISTINCT CASE WHEN m.event_start IS NOT NULL THEN m END) AS timed
RETURN relation, facts, objects, memories, timed
ORDER BY memories DESC, relation
