// Forgets one memory: removes it from the evidence of the relations it backs, deletes relations and
// entities left without evidence, recounts the mentions of the entities it touched, closes the gap
// in its session's NEXT chain, then deletes it. The facts it ended hold again, and the
// one-value-at-a-time facts of the entities it touched get their validity recomputed.
MATCH (m:Memory {user_id: $user_id, id: $id})
// the user's change sequence advances (as in write_memories.cypher) and the forgotten id joins its
// log of removals, of which the newest $keep_removed are kept: a replica further behind than that
// reloads instead of applying the removals (graph/follow.py)
MERGE (log:ChangeLog {user_id: $user_id})
ON CREATE SET log.epoch = $epoch, log.seq = 0, log.trimmed = 0, log.removed = [],
  log.removed_seq = []
SET log.locked = true
WITH m, log
SET log.seq = log.seq + 1
WITH m, log, size(log.removed) + 1 - $keep_removed AS over
SET log.trimmed = CASE WHEN over > 0 THEN log.removed_seq[over - 1] ELSE log.trimmed END
SET log.removed = CASE WHEN over > 0 THEN log.removed[over..] ELSE log.removed END + [$id],
  log.removed_seq = CASE WHEN over > 0 THEN log.removed_seq[over..] ELSE log.removed_seq END
    + [log.seq]
WITH m, log.seq AS seq, log.epoch AS epoch
OPTIONAL MATCH (m)-[:MENTIONS]->(e:Entity)
WITH seq, epoch, m, collect(e) AS entities
// the relations are reached from each touched entity (UNWIND, then a match from a bound node), not
// by a match on (a:Entity) filtered by `a IN entities`: Neo4j plans that as a scan of every
// user's entities
UNWIND CASE WHEN size(entities) = 0 THEN [null] ELSE entities END AS a
OPTIONAL MATCH (a)-[r]->(:Entity)
WHERE $id IN r.evidence
WITH seq, epoch, m, entities, collect(DISTINCT r) AS rels
FOREACH (r IN rels |
  SET r.evidence = [x IN r.evidence WHERE x <> $id],
    r.count = r.count - 1,
    r.strong = CASE WHEN m.pinned OR m.importance >= 3 THEN r.strong - 1 ELSE r.strong END)
FOREACH (r IN [x IN rels WHERE size(x.evidence) = 0] | DELETE r)
WITH seq, epoch, m, entities
// the facts the memory ended (extraction/endings.py: "I quit the club") hold again: forgetting
// the ending undoes it, as forgetting a newer value does
UNWIND CASE WHEN size(entities) = 0 THEN [null] ELSE entities END AS a0
OPTIONAL MATCH (a0)-[z]->(:Entity)
WHERE z.ended_by = $id
FOREACH (_ IN CASE WHEN z IS NULL THEN [] ELSE [1] END |
  SET z.ended_at = null, z.ended_by = null, z.valid_to = null)
WITH DISTINCT seq, epoch, m, entities
// the one-value-at-a-time facts of the entities it touched get their validity recomputed, as in
// write_memories.cypher: forgetting the newer value makes the older one current again
UNWIND CASE WHEN size(entities) = 0 THEN [null] ELSE entities END AS a
OPTIONAL MATCH (a)-[x]->(:Entity)
WHERE type(x) IN $single_valued_types AND size(x.evidence) > 0
WITH seq, epoch, m, entities, a, [g IN $single_valued_groups WHERE type(x) IN g][0] AS g, collect(x) AS xs
FOREACH (x IN xs |
  SET x.valid_from = x.first_seen,
    x.valid_to = reduce(v = CASE WHEN x.ended_at > x.last_seen THEN x.ended_at ELSE null END, y IN xs |
      CASE WHEN y.last_seen > x.last_seen AND (v IS NULL OR
          (CASE WHEN y.first_seen > x.last_seen THEN y.first_seen ELSE y.last_seen END) < v)
        THEN (CASE WHEN y.first_seen > x.last_seen THEN y.first_seen ELSE y.last_seen END)
        ELSE v END))
WITH DISTINCT seq, epoch, m, entities
OPTIONAL MATCH (m)-[:IN_SESSION]->(session:Session)
FOREACH (s IN CASE WHEN session IS NULL THEN [] ELSE [session] END |
  SET s.turn_count = s.turn_count - 1)
WITH seq, epoch, m, entities
OPTIONAL MATCH (before:Memory)-[:NEXT]->(m)
OPTIONAL MATCH (m)-[:NEXT]->(after:Memory)
FOREACH (_ IN CASE WHEN before IS NULL OR after IS NULL THEN [] ELSE [1] END |
  CREATE (before)-[:NEXT]->(after))
DETACH DELETE m
WITH seq, epoch, entities
UNWIND CASE WHEN size(entities) = 0 THEN [null] ELSE entities END AS e
OPTIONAL MATCH (e)<-[:MENTIONS]-(other:Memory)
WITH seq, epoch, e, count(other) AS remaining
FOREACH (_ IN CASE WHEN e IS NOT NULL AND remaining > 0 THEN [1] ELSE [] END |
  SET e.mention_count = remaining)
FOREACH (_ IN CASE WHEN e IS NOT NULL AND remaining = 0 THEN [1] ELSE [] END |
  DETACH DELETE e)
RETURN seq, epoch, count(*) AS touched
