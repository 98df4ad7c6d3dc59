// Memories by id, with the keys of the entities they mention. Never returns the embedding.
// OPTIONAL MATCH + collect, not a pattern comprehension: on FalkorDB the comprehension costs
// about 3× as much per memory, and this statement runs on every context call (bench/perf.py).
MATCH (m:Memory {user_id: $user_id})
WHERE m.id IN $ids
OPTIONAL MATCH (m)-[:MENTIONS]->(e:Entity)
WITH m, collect(e.key) AS entity_keys
RETURN m.id AS id, m.user_id AS user_id, m.text AS text, m.speaker AS speaker,
  m.session_id AS session_id, m.occurred_at AS occurred_at, m.event_start AS event_start,
  m.event_end AS event_end, m.created_at AS created_at,
  m.last_accessed_at AS last_accessed_at, m.access_count AS access_count,
  m.external_id AS external_id, m.importance AS importance, m.pinned AS pinned,
  m.category AS category, m.fact_type AS fact_type, coalesce(m.kind, 'turn') AS kind,
  m.repeat_of AS repeat_of, coalesce(m.repeats, 0) AS repeats, m.redactions AS redactions, m.domain AS domain,
  entity_keys
