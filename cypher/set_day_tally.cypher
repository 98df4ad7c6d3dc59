// Stores the profile tally (JSON, graph/profile/tally.py) and the share of the knowledge index
// (graph/profile/coverage_tally.py) of one UTC day of a user's turns without a session; a day left
// with no such turn loses its node (drop_day_tally.cypher).
MERGE (d:DayTally {user_id: $user_id, day: $day})
SET d.tally = $tally, d.coverage = $coverage
RETURN d.day AS day
