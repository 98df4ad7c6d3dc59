// The open threads (questions left at the end) of a user's newest ended sessions.
MATCH (s:Session {user_id: $user_id})
WHERE s.ended = true AND size(coalesce(s.open_threads, [])) > 0
RETURN s.id AS id, s.last_turn_at AS at, s.open_threads AS open_threads
ORDER BY at DESC
LIMIT $limit
