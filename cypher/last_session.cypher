// The user's most recent session other than $exclude, for the user line of a context block
// (with the topics its episode found, when it ended).
MATCH (s:Session {user_id: $user_id})
WHERE $exclude IS NULL OR s.id <> $exclude
RETURN s.id AS id, s.last_turn_at AS last_turn_at, s.topics AS topics
ORDER BY s.last_turn_at DESC
LIMIT 1
