// The people one session's latest turns mention, with when each was last mentioned and whether
// as the turn's speaker: pronouns in the session's next turn may refer to them. `spoke` counts the
// turns spoken: FalkorDB's sum() of integers is a float, Neo4j's an integer; toInteger makes
// both an integer.
MATCH (m:Memory {user_id: $user_id})-[:IN_SESSION]->(:Session {user_id: $user_id, id: $session_id})
WITH m ORDER BY m.created_at DESC LIMIT $turns
MATCH (m)-[x:MENTIONS]->(e:Entity {user_id: $user_id, type: 'person'})
RETURN e.key AS key, max(m.created_at) AS at, toInteger(sum(CASE WHEN coalesce(x.as_speaker, false) THEN 1 ELSE 0 END)) AS spoke
ORDER BY at, key
