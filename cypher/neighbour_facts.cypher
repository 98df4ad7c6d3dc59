// The turns just before and after each given memory in its session (the NEXT chain), each with
// what scoring needs of it (the columns of memory_facts): `of` is the given memory, `side` says
// where the neighbour sits. The neighbour stage of a context call in one statement (one round
// trip on Bolt) instead of the links and then their facts.
MATCH (m:Memory {user_id: $user_id})-[:NEXT]->(n:Memory {user_id: $user_id})
WHERE m.id IN $ids
OPTIONAL MATCH (n)-[r:MENTIONS]->(e:Entity)
WITH m, n, collect(e.key) AS entity_keys,
  collect(CASE WHEN r.as_speaker THEN e.key END) AS speaker_keys
RETURN m.id AS of, 'after' AS side, n.id AS id, n.occurred_at AS occurred_at,
  n.event_start AS event_start, n.event_end AS event_end, coalesce(n.kind, 'turn') AS kind,
  n.pinned AS pinned, n.external_id AS external_id, entity_keys, speaker_keys
UNION ALL
MATCH (n:Memory {user_id: $user_id})-[:NEXT]->(m:Memory {user_id: $user_id})
WHERE m.id IN $ids
OPTIONAL MATCH (n)-[r:MENTIONS]->(e:Entity)
WITH m, n, collect(e.key) AS entity_keys,
  collect(CASE WHEN r.as_speaker THEN e.key END) AS speaker_keys
RETURN m.id AS of, 'before' AS side, n.id AS id, n.occurred_at AS occurred_at,
  n.event_start AS event_start, n.event_end AS event_end, coalesce(n.kind, 'turn') AS kind,
  n.pinned AS pinned, n.external_id AS external_id, entity_keys, speaker_keys
