// Typed facts of the types $types stated in the turns $ids (one session's, or one UTC day's
// turns without a session) by the person they are about: the relation's subject is the speaker
// of one of those turns in its evidence (MENTIONS as_speaker). The evidence returned is those
// turns only, so a profile tally never depends on another session or day
// (graph/profile/tally.py). Each speaker's relations are read once for all their turns, not once
// per turn: the speaker is the user's most connected entity, and reading its relations per turn
// made this read grow with the whole history (docs/performance.md).
MATCH (m:Memory {user_id: $user_id})
WHERE m.id IN $ids
MATCH (m)-[x:MENTIONS]->(a:Entity)
WHERE x.as_speaker = true
WITH a, collect(DISTINCT m.id) AS own
MATCH (a)-[r]->(b:Entity {user_id: $user_id})
WHERE type(r) IN $types
WITH a, r, b, [i IN own WHERE i IN r.evidence] AS evidence
WHERE size(evidence) > 0
RETURN a.key AS speaker_key, type(r) AS type, b.key AS area_key, b.label AS area_label,
  evidence
ORDER BY area_key, type
