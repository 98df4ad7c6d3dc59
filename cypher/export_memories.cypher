// One page of a user's memories with every property (embedding included), ordered by id, for
// `recollect export`.
MATCH (m:Memory {user_id: $user_id})
WHERE $after IS NULL OR m.id > $after
RETURN m {.*} AS props
ORDER BY m.id
LIMIT $limit
