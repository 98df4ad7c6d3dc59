// Entity cards by key: the entity's own properties (relations are fetched by entity_relations).
MATCH (e:Entity {user_id: $user_id})
WHERE e.key IN $keys
RETURN e.key AS key, e.type AS type, e.label AS label, e.aliases AS aliases,
  e.mention_count AS mention_count, e.first_seen AS first_seen, e.last_seen AS last_seen
