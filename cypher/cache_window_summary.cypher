// Caches the extractive summary of a session's middle turns, valid while turn_count is $upto.
MATCH (s:Session {user_id: $user_id, id: $session_id})
SET s.window_summary = $sentences, s.window_upto = $upto
RETURN s.id AS id
