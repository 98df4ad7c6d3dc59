// The user's last session whose last turn was said by $as_of, other than $exclude (the current
// one): what a context block asked as of a past moment names as the last session, never one
// that came after. Read only when the newest session is later than $as_of.
MATCH (s:Session {user_id: $user_id})
WHERE s.last_turn_at IS NOT NULL AND s.last_turn_at <= $as_of
  AND ($exclude IS NULL OR s.id <> $exclude)
RETURN s.id AS id
ORDER BY s.last_turn_at DESC, s.id DESC
LIMIT 1
