// Stores one ended session's profile tally (JSON, graph/profile/tally.py) on its node.
MATCH (s:Session {user_id: $user_id, id: $session_id})
SET s.profile_tally = $tally
RETURN s.id AS id
