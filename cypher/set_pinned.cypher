// Pins or unpins a memory and keeps the `strong` counter of the relations it backs in step
// (a relation is strong when a pinned or importance-3 memory is its evidence). The user's change
// sequence advances (as in write_memories.cypher): a replica's copy of the memory facts, which
// scoring reads `pinned` from (graph/facts.py), is read again.
MATCH (m:Memory {user_id: $user_id, id: $id})
MERGE (log:ChangeLog {user_id: $user_id})
ON CREATE SET log.epoch = $epoch, log.seq = 0, log.trimmed = 0, log.removed = [],
  log.removed_seq = []
SET log.locked = true
WITH m, log
SET log.seq = log.seq + 1
WITH m, log.seq AS seq, log.epoch AS epoch, (m.pinned OR m.importance >= 3) AS was_strong
SET m.pinned = $pinned
WITH m, seq, epoch, was_strong, (m.pinned OR m.importance >= 3) AS is_strong
WITH m, seq, epoch,
  CASE WHEN is_strong = was_strong THEN 0 WHEN is_strong THEN 1 ELSE -1 END AS delta
OPTIONAL MATCH (m)-[:MENTIONS]->(:Entity)-[r]->(:Entity)
WHERE $id IN r.evidence
WITH m, seq, epoch, delta, collect(DISTINCT r) AS rels
FOREACH (r IN rels | SET r.strong = r.strong + delta)
RETURN m.id AS id, seq, epoch
