// Merges one entity ($source) into another ($target) of the same user, for a correction by hand
// (mergeEntities) or when a named person turns out to be an unnamed one ("my husband" → Tom):
// mentions move (one per memory), typed relations move in both directions (counts summed,
// evidence joined without repeats, the earliest first_seen and latest last_seen kept, history
// from the latest ending after the last statement: extraction/endings.py), the
// source's label and aliases become the target's aliases, then the source is deleted and the
// target's mention count recounted. A relation between the two is dropped, not turned into a
// loop. Relationship types are literals of the vocabulary (graph/vocabulary.py), chosen by type.
// Returns too the memories that mentioned the source or backed its relations (`changed`): the
// profile tallies and index shares of their sessions and days name the source and are tallied
// again (graph/write/profiles.py).
MATCH (s:Entity {user_id: $user_id, key: $source})
MATCH (t:Entity {user_id: $user_id, key: $target})
// the user's change sequence advances (as in write_memories.cypher): replicas reload the catalogue
MERGE (log:ChangeLog {user_id: $user_id})
ON CREATE SET log.epoch = $epoch, log.seq = 0, log.trimmed = 0, log.removed = [],
  log.removed_seq = []
SET log.locked = true
WITH s, t, log
SET log.seq = log.seq + 1
WITH s, t, log.seq AS seq, log.epoch AS epoch
OPTIONAL MATCH (m:Memory {user_id: $user_id})-[y:MENTIONS]->(s)
FOREACH (_ IN CASE WHEN m IS NULL THEN [] ELSE [1] END |
  MERGE (m)-[z:MENTIONS]->(t)
  ON CREATE SET z.as_speaker = y.as_speaker
)
WITH seq, epoch, s, t, collect(DISTINCT m.id) AS said
WITH seq, epoch, s, t,
  said + reduce(ids = [], e IN [(s)-[q]-(:Entity {user_id: $user_id}) | q.evidence] | ids + e)
    AS changed
OPTIONAL MATCH (s)-[r]->(o:Entity {user_id: $user_id})
WITH seq, epoch, s, t, changed, r, o, CASE WHEN r IS NULL OR o.key = $target THEN '' ELSE type(r) END AS k
// -- outgoing --
FOREACH (_ IN CASE WHEN k = 'WORKS_AT' THEN [1] ELSE [] END |
  MERGE (t)-[x:WORKS_AT]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'WORKS_AS' THEN [1] ELSE [] END |
  MERGE (t)-[x:WORKS_AS]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'WORKS_ON' THEN [1] ELSE [] END |
  MERGE (t)-[x:WORKS_ON]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'STUDIES' THEN [1] ELSE [] END |
  MERGE (t)-[x:STUDIES]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'LIVES_IN' THEN [1] ELSE [] END |
  MERGE (t)-[x:LIVES_IN]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'MOVED_TO' THEN [1] ELSE [] END |
  MERGE (t)-[x:MOVED_TO]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'FROM' THEN [1] ELSE [] END |
  MERGE (t)-[x:FROM]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'VISITED' THEN [1] ELSE [] END |
  MERGE (t)-[x:VISITED]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'ATTENDED' THEN [1] ELSE [] END |
  MERGE (t)-[x:ATTENDED]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'MEMBER_OF' THEN [1] ELSE [] END |
  MERGE (t)-[x:MEMBER_OF]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'VOLUNTEERS_AT' THEN [1] ELSE [] END |
  MERGE (t)-[x:VOLUNTEERS_AT]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'SUPPORTS' THEN [1] ELSE [] END |
  MERGE (t)-[x:SUPPORTS]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'FAMILY_OF' THEN [1] ELSE [] END |
  MERGE (t)-[x:FAMILY_OF]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'PARTNER_OF' THEN [1] ELSE [] END |
  MERGE (t)-[x:PARTNER_OF]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'FRIEND_OF' THEN [1] ELSE [] END |
  MERGE (t)-[x:FRIEND_OF]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'HAS_PET' THEN [1] ELSE [] END |
  MERGE (t)-[x:HAS_PET]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'OWNS' THEN [1] ELSE [] END |
  MERGE (t)-[x:OWNS]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'LIKES' THEN [1] ELSE [] END |
  MERGE (t)-[x:LIKES]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'DISLIKES' THEN [1] ELSE [] END |
  MERGE (t)-[x:DISLIKES]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'PRACTICES' THEN [1] ELSE [] END |
  MERGE (t)-[x:PRACTICES]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'PLAYS' THEN [1] ELSE [] END |
  MERGE (t)-[x:PLAYS]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'MADE' THEN [1] ELSE [] END |
  MERGE (t)-[x:MADE]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'READ' THEN [1] ELSE [] END |
  MERGE (t)-[x:READ]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'WATCHED' THEN [1] ELSE [] END |
  MERGE (t)-[x:WATCHED]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'PLANS' THEN [1] ELSE [] END |
  MERGE (t)-[x:PLANS]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'RELATED_TO' THEN [1] ELSE [] END |
  MERGE (t)-[x:RELATED_TO]->(o)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
WITH DISTINCT seq, epoch, s, t, changed
OPTIONAL MATCH (o:Entity {user_id: $user_id})-[r]->(s)
WITH seq, epoch, s, t, changed, r, o, CASE WHEN r IS NULL OR o.key = $target THEN '' ELSE type(r) END AS k
// -- incoming --
FOREACH (_ IN CASE WHEN k = 'WORKS_AT' THEN [1] ELSE [] END |
  MERGE (o)-[x:WORKS_AT]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'WORKS_AS' THEN [1] ELSE [] END |
  MERGE (o)-[x:WORKS_AS]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'WORKS_ON' THEN [1] ELSE [] END |
  MERGE (o)-[x:WORKS_ON]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'STUDIES' THEN [1] ELSE [] END |
  MERGE (o)-[x:STUDIES]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'LIVES_IN' THEN [1] ELSE [] END |
  MERGE (o)-[x:LIVES_IN]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'MOVED_TO' THEN [1] ELSE [] END |
  MERGE (o)-[x:MOVED_TO]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'FROM' THEN [1] ELSE [] END |
  MERGE (o)-[x:FROM]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'VISITED' THEN [1] ELSE [] END |
  MERGE (o)-[x:VISITED]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'ATTENDED' THEN [1] ELSE [] END |
  MERGE (o)-[x:ATTENDED]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'MEMBER_OF' THEN [1] ELSE [] END |
  MERGE (o)-[x:MEMBER_OF]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'VOLUNTEERS_AT' THEN [1] ELSE [] END |
  MERGE (o)-[x:VOLUNTEERS_AT]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'SUPPORTS' THEN [1] ELSE [] END |
  MERGE (o)-[x:SUPPORTS]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'FAMILY_OF' THEN [1] ELSE [] END |
  MERGE (o)-[x:FAMILY_OF]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'PARTNER_OF' THEN [1] ELSE [] END |
  MERGE (o)-[x:PARTNER_OF]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'FRIEND_OF' THEN [1] ELSE [] END |
  MERGE (o)-[x:FRIEND_OF]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'HAS_PET' THEN [1] ELSE [] END |
  MERGE (o)-[x:HAS_PET]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'OWNS' THEN [1] ELSE [] END |
  MERGE (o)-[x:OWNS]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'LIKES' THEN [1] ELSE [] END |
  MERGE (o)-[x:LIKES]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'DISLIKES' THEN [1] ELSE [] END |
  MERGE (o)-[x:DISLIKES]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'PRACTICES' THEN [1] ELSE [] END |
  MERGE (o)-[x:PRACTICES]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'PLAYS' THEN [1] ELSE [] END |
  MERGE (o)-[x:PLAYS]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'MADE' THEN [1] ELSE [] END |
  MERGE (o)-[x:MADE]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'READ' THEN [1] ELSE [] END |
  MERGE (o)-[x:READ]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'WATCHED' THEN [1] ELSE [] END |
  MERGE (o)-[x:WATCHED]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'PLANS' THEN [1] ELSE [] END |
  MERGE (o)-[x:PLANS]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
FOREACH (_ IN CASE WHEN k = 'RELATED_TO' THEN [1] ELSE [] END |
  MERGE (o)-[x:RELATED_TO]->(t)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen,
    x.last_seen = r.last_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong,
    x.evidence = x.evidence + [v IN r.evidence WHERE NOT v IN x.evidence],
    x.first_seen = CASE WHEN r.first_seen < x.first_seen THEN r.first_seen ELSE x.first_seen END,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(x.role, r.role),
    x.ended_at = CASE WHEN x.ended_at IS NULL OR r.ended_at > x.ended_at THEN r.ended_at ELSE x.ended_at END)
WITH DISTINCT seq, epoch, s, t, changed
// -- entity --
SET t.aliases = coalesce(t.aliases, []) +
    [a IN [s.label] + coalesce(s.aliases, []) WHERE NOT a IN coalesce(t.aliases, []) AND a <> t.label],
  t.first_seen = CASE WHEN s.first_seen < t.first_seen THEN s.first_seen ELSE t.first_seen END,
  t.last_seen = CASE WHEN s.last_seen > t.last_seen THEN s.last_seen ELSE t.last_seen END,
  t.gender = coalesce(t.gender, s.gender)
DETACH DELETE s
WITH DISTINCT seq, epoch, t, changed
OPTIONAL MATCH (t)<-[:MENTIONS]-(m:Memory {user_id: $user_id})
WITH seq, epoch, t, changed, count(m) AS mentions
SET t.mention_count = mentions
RETURN t.key AS key, mentions, seq, epoch, changed
