// The profile tallies and knowledge-index shares (JSON, graph/profile/tally.py and
// coverage_tally.py) of one user's days of turns without a session, by UTC day ("2026-01-05").
MATCH (d:DayTally {user_id: $user_id})
RETURN d.day AS day, d.tally AS tally, d.coverage AS coverage
ORDER BY day
