// Answers: whom and what does a user talk about most? The most-mentioned entities: the number of
// memories that mention each one (counted from the MENTIONS edges), next to the stored
// mention_count, and the first and last time it was mentioned (epoch seconds).
// Parameters: $userId (whose graph, e.g. 'alice'), $limit (how many entities, e.g. 25).
MATCH (e:Entity {user_id: $userId})
OPTIONAL MATCH (e)<-[:MENTIONS]-(m:Memory)
WITH e, count(m) AS memories
RETURN e.key AS key, e.label AS label, e.type AS type, memories,
  e.mention_count AS mention_count, e.first_seen AS first_seen, e.last_seen AS last_seen
ORDER BY memories DESC, e.mention_count DESC, e.key
LIMIT $limit
