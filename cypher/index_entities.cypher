// The entities the knowledge index counts: those the memories of one user (or domain) mention,
// not as their speaker, with how many memories mention them and in which sessions.
MATCH (m:Memory {user_id: $user_id})-[x:MENTIONS]->(e:Entity)
WHERE ($domain IS NULL OR m.domain = $domain) AND coalesce(m.kind, 'turn') = 'turn'
  AND coalesce(x.as_speaker, false) = false
RETURN e.key AS key, e.type AS type, e.label AS label, coalesce(e.unnamed, false) AS unnamed,
  count(m) AS mentions, collect(DISTINCT m.session_id) AS sessions
