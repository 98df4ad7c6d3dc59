// The explorer's overview (graph/neighbourhood.py): a user's most-mentioned entities, at most
// $limit, optionally only of the types in $entity_types and only those mentioned within
// [$since, $until] (first and last mention overlap it), with what the page draws of each.
MATCH (e:Entity {user_id: $user_id})
WHERE ($all_entity_types OR e.type IN $entity_types)
  AND coalesce(e.first_seen, $since) <= $until
  AND coalesce(e.last_seen, $until) >= $since
RETURN e.key AS key, e.label AS label, e.type AS type, e.aliases AS aliases,
  e.mention_count AS mention_count, e.first_seen AS first_seen, e.last_seen AS last_seen
ORDER BY mention_count DESC, key
LIMIT $limit
