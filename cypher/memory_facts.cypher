// What scoring needs of each candidate memory and nothing more: when it happened, its kind,
// whether it is pinned, its idempotency key (episodes are named by it) and the keys of the
// entities it mentions. Retrieval reads full records (get_memories) only of what it shows.
MATCH (m:Memory {user_id: $user_id})
WHERE m.id IN $ids
OPTIONAL MATCH (m)-[:MENTIONS]->(e:Entity)
WITH m, collect(e.key) AS entity_keys
RETURN m.id AS id, m.occurred_at AS occurred_at, coalesce(m.kind, 'turn') AS kind,
  m.pinned AS pinned, m.external_id AS external_id, entity_keys
