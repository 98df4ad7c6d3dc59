// Open sessions of one user whose last turn is older than $before (to be ended automatically).
MATCH (s:Session {user_id: $user_id})
WHERE coalesce(s.ended, false) = false AND s.last_turn_at < $before
RETURN s.id AS id
