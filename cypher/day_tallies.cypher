// The profile tallies of one user's days of turns without a session (JSON,
// graph/profile/tally.py), by UTC day ("2026-01-05").
MATCH (d:DayTally {user_id: $user_id})
RETURN d.day AS day, d.tally AS tally
ORDER BY day
