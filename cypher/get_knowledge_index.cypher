// A user's stored knowledge index for one domain ('' for all their memories).
MATCH (k:KnowledgeIndex {user_id: $user_id, domain: $domain})
RETURN k.index AS index, k.built_at AS built_at
