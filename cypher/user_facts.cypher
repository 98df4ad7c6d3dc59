// Every memory of the user with what scoring needs of it (the columns of memory_facts.cypher) and
// `before`, the turn before it in its session (NEXT), in the order they were written: the service
// holds this copy in process (graph/facts.py) and keeps it in step with its own writes, so a
// context call reads candidates, entities' newest memories and session neighbours without a
// statement. Read once per user and process, and again after a change made elsewhere.
MATCH (m:Memory {user_id: $user_id})
OPTIONAL MATCH (m)-[r:MENTIONS]->(e:Entity)
WITH m, collect(e.key) AS entity_keys,
  collect(CASE WHEN r.as_speaker THEN e.key END) AS speaker_keys
OPTIONAL MATCH (p:Memory {user_id: $user_id})-[:NEXT]->(m)
RETURN m.id AS id, m.occurred_at AS occurred_at, m.event_start AS event_start,
  m.event_end AS event_end, coalesce(m.kind, 'turn') AS kind,
  m.pinned AS pinned, m.external_id AS external_id, m.session_id AS session_id, entity_keys,
  speaker_keys, coalesce(m.topic_candidates, []) AS held_keys,
  p.id AS before
ORDER BY m.created_at
