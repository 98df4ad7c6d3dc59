// The entities the turns $ids (one session's, or one UTC day's without a session) mention, not as
// their speaker, for that occasion's share of the knowledge index (graph/profile/coverage_tally.py).
MATCH (m:Memory {user_id: $user_id})
WHERE m.id IN $ids
MATCH (m)-[x:MENTIONS]->(e:Entity)
WHERE coalesce(x.as_speaker, false) = false
RETURN m.id AS id, e.key AS key, e.type AS type, e.label AS label,
  coalesce(e.unnamed, false) AS unnamed
