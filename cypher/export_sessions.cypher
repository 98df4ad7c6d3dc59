// Every session of one user with its properties, for `recollect export`.
MATCH (s:Session {user_id: $user_id})
RETURN s {.*} AS props
