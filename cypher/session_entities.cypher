// The entities one session's turns mention most (speakers as authors left out).
MATCH (m:Memory {user_id: $user_id})-[:IN_SESSION]->(:Session {user_id: $user_id, id: $session_id})
MATCH (m)-[x:MENTIONS]->(e:Entity)
WHERE coalesce(x.as_speaker, false) = false
RETURN e.key AS key, e.label AS label, e.type AS type, e.first_seen AS first_seen,
       count(m) AS mentions
ORDER BY mentions DESC, key
LIMIT $limit
