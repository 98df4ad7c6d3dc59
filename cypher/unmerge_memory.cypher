// Undoes one merge of stated facts, named by either side: the kept memory gets its own text and
// embedding back, and every memory it absorbed becomes a Memory again (the MERGED_FROM edges go).
// The user's change log takes a new epoch, so every process (this one too) reloads the user's
// caches from the graph: a restored memory and a changed embedding are not deltas the log carries.
OPTIONAL MATCH (:Absorbed {user_id: $user_id, id: $id})<-[:MERGED_FROM]-(parent:Memory)
OPTIONAL MATCH (own:Memory {user_id: $user_id, id: $id})
WITH coalesce(parent, own) AS k
MATCH (k:Memory)-[m:MERGED_FROM]->(o:Absorbed)
WITH k, collect(o) AS restored, collect(m) AS edges
FOREACH (e IN edges | DELETE e)
FOREACH (o IN restored |
  REMOVE o:Absorbed
  SET o:Memory, o.absorbed_into = null, o.absorbed_at = null)
SET k.text = coalesce(k.own_text, k.text), k.embedding = coalesce(k.own_embedding, k.embedding),
  k.own_text = null, k.own_embedding = null
WITH k, restored
MERGE (log:ChangeLog {user_id: $user_id})
ON CREATE SET log.seq = 0, log.trimmed = 0, log.removed = [], log.removed_seq = []
SET log.locked = true
SET log.epoch = $epoch, log.seq = log.seq + 1, log.removed = [], log.removed_seq = []
RETURN log.seq AS seq, log.epoch AS epoch, k.id AS kept, [o IN restored | o.id] AS restored
