// The profile tallies of a user's ended sessions (JSON, graph/profile/tally.py); a session ended
// before tallies existed comes back with a null tally and is tallied again.
MATCH (s:Session {user_id: $user_id})
WHERE s.ended = true
RETURN s.id AS id, s.profile_tally AS tally
ORDER BY id
