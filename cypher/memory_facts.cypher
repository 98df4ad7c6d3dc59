// What scoring needs of each candidate memory and nothing more: when it was said and the time it
// speaks of (event_start/event_end, when it names one), its kind,
// whether it is pinned, its idempotency key (episodes are named by it), its session (results
// spread over sessions) and the keys of the
// entities it mentions, and of those the one that said it (`speaker_keys`), and the names and
// topics held on it that no entity stands for yet (`held_keys`). Retrieval reads full records
// (get_memories) only of what it shows.
MATCH (m:Memory {user_id: $user_id})
WHERE m.id IN $ids
OPTIONAL MATCH (m)-[r:MENTIONS]->(e:Entity)
WITH m, collect(e.key) AS entity_keys,
  collect(CASE WHEN r.as_speaker THEN e.key END) AS speaker_keys
RETURN m.id AS id, m.occurred_at AS occurred_at, m.event_start AS event_start,
  m.event_end AS event_end, coalesce(m.kind, 'turn') AS kind,
  m.pinned AS pinned, m.external_id AS external_id, m.session_id AS session_id, entity_keys,
  speaker_keys, coalesce(m.topic_candidates, []) AS held_keys
