// The user's two most recent sessions, newest first: the last session a context block's user line
// names is the first of them that is not the current one. graph/caches.py holds the answer until
// the user's change mark moves (every write that moves a session's last turn moves it), so this
// sort over all of the user's sessions runs once per change, not once per call.
MATCH (s:Session {user_id: $user_id})
WHERE s.last_turn_at IS NOT NULL
RETURN s.id AS id
ORDER BY s.last_turn_at DESC, s.id DESC
LIMIT 2
