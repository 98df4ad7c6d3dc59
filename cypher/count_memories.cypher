// How many memories one user has.
MATCH (m:Memory {user_id: $user_id})
RETURN count(m) AS total
