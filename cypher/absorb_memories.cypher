// Merge of stated facts (graph/write/merge.py): the memories in $absorbed fold into $kept, whose
// text already holds the merged text. Each absorbed memory stays, inactive: it loses the Memory
// label (so no query of memories, and no retrieval, sees it) and takes Absorbed, readable by id;
// (kept)-[:MERGED_FROM]->(absorbed) keeps the lineage. The user's change sequence advances and the
// absorbed ids join its log of removals, as in forget_memory.cypher, so replicas drop them.
MATCH (k:Memory {user_id: $user_id, id: $kept})
MERGE (log:ChangeLog {user_id: $user_id})
ON CREATE SET log.epoch = $epoch, log.seq = 0, log.trimmed = 0, log.removed = [],
  log.removed_seq = []
SET log.locked = true
WITH k, log
SET log.seq = log.seq + 1
WITH k, log, size(log.removed) + size($absorbed) - $keep_removed AS over
SET log.trimmed = CASE WHEN over > 0 THEN log.removed_seq[over - 1] ELSE log.trimmed END
SET log.removed = CASE WHEN over > 0 THEN log.removed[over..] ELSE log.removed END + $absorbed,
  log.removed_seq = CASE WHEN over > 0 THEN log.removed_seq[over..] ELSE log.removed_seq END
    + [x IN $absorbed | log.seq]
WITH k, log.seq AS seq, log.epoch AS epoch
UNWIND $absorbed AS absorbed_id
MATCH (o:Memory {user_id: $user_id, id: absorbed_id})
REMOVE o:Memory
SET o:Absorbed, o.absorbed_into = k.id, o.absorbed_at = $now
CREATE (k)-[:MERGED_FROM {user_id: $user_id, at: $now}]->(o)
RETURN seq, epoch, count(o) AS absorbed
