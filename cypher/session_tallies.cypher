// The profile tallies of a user's ended sessions and their shares of the knowledge index (JSON,
// graph/profile/tally.py and coverage_tally.py); a session ended before they existed comes back
// with nulls and is tallied again.
MATCH (s:Session {user_id: $user_id})
WHERE s.ended = true
RETURN s.id AS id, s.profile_tally AS tally, s.coverage_tally AS coverage
ORDER BY id
