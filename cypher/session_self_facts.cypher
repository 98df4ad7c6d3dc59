// Typed facts of the types $types stated in one session by the person they are about: the
// relation's subject is the speaker of a session turn in its evidence (MENTIONS as_speaker). The
// evidence returned is that session's turns only, so a session's profile tally never depends on
// another session (graph/profile/tally.py).
MATCH (m:Memory {user_id: $user_id})-[:IN_SESSION]->(:Session {user_id: $user_id, id: $session_id})
MATCH (m)-[x:MENTIONS]->(a:Entity)
WHERE x.as_speaker = true
MATCH (a)-[r]->(b:Entity {user_id: $user_id})
WHERE type(r) IN $types AND m.id IN r.evidence
RETURN a.key AS speaker_key, type(r) AS type, b.key AS area_key, b.label AS area_label,
  collect(m.id) AS evidence
ORDER BY area_key, type
