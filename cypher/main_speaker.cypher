// The speaker with the most memories of one user (the user's name when none is given).
MATCH (m:Memory {user_id: $user_id})
WHERE m.speaker IS NOT NULL AND coalesce(m.kind, 'turn') = 'turn'
RETURN m.speaker AS speaker, count(m) AS turns
ORDER BY turns DESC, speaker
LIMIT 1
