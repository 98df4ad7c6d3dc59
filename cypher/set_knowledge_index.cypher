// Stores a user's knowledge index for one domain ('' for all their memories) as JSON.
MERGE (k:KnowledgeIndex {user_id: $user_id, domain: $domain})
SET k.index = $index, k.built_at = $now
RETURN k.built_at AS built_at
