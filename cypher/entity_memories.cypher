// The newest memories that mention each of the given entities, at most $limit per entity.
MATCH (e:Entity {user_id: $user_id})<-[:MENTIONS]-(m:Memory)
WHERE e.key IN $keys
WITH e, m ORDER BY m.occurred_at DESC
WITH e, collect(m.id) AS ids
RETURN e.key AS key, ids[..$limit] AS ids
