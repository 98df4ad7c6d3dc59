// Removes the profile tally of one UTC day that has no turn without a session left (forget).
MATCH (d:DayTally {user_id: $user_id, day: $day})
DETACH DELETE d
RETURN count(*) AS dropped
