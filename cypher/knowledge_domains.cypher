// The domains a user has a stored knowledge index for ('' for all their memories): each is
// rebuilt when a session ends.
MATCH (k:KnowledgeIndex {user_id: $user_id})
RETURN k.domain AS domain
ORDER BY domain
