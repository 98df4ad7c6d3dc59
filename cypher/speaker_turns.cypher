// Turns per speaker of one user. The user's name, when a context call gives none, is the speaker
// with the most turns; the service loads these counts once and follows its own writes.
MATCH (m:Memory {user_id: $user_id})
WHERE m.speaker IS NOT NULL AND coalesce(m.kind, 'turn') = 'turn'
RETURN m.speaker AS speaker, count(m) AS turns
