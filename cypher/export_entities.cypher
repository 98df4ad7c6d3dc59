// Every entity of one user with its properties and type, for `recollect export`.
MATCH (e:Entity {user_id: $user_id})
RETURN e {.*} AS props
