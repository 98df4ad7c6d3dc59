// Stores one ended session's profile tally (JSON, graph/profile/tally.py) and its share of the
// knowledge index (JSON, graph/profile/coverage_tally.py) on its node.
MATCH (s:Session {user_id: $user_id, id: $session_id})
SET s.profile_tally = $tally, s.coverage_tally = $coverage
RETURN s.id AS id
