// Writes one batch of memories (with the candidate topics each holds until one recurs) with their
// entities (gender, unnamed and plural for people known by role), MENTIONS edges (also from
// earlier memories to a candidate topic that recurs now), their sessions (IN_SESSION),
// the NEXT chain of each session's turns (in ingest order) and typed relations in a single
// statement, so the batch is atomic on both engines. The Python side pre-aggregates per entity and
// per relation; every list may be empty, hence the [null] padding and FOREACH guards.
// Labels and relationship types are literals from graph/vocabulary.py (a test keeps them in sync).
// The user's change sequence (graph/follow.py) advances first, in this statement: the memories
// written carry its new value, so another replica brings its caches up to date from what changed
// after the value it holds. Writing `locked` before reading `seq` takes the node's write lock on
// Neo4j, so concurrent writers get consecutive values in commit order.
MERGE (log:ChangeLog {user_id: $user_id})
ON CREATE SET log.epoch = $epoch, log.seq = 0, log.trimmed = 0, log.removed = [],
  log.removed_seq = []
SET log.locked = true
WITH log
SET log.seq = log.seq + 1
WITH log.seq AS seq, log.epoch AS epoch
UNWIND $memories AS m
CREATE (mem:Memory {
  id: m.id, user_id: $user_id, text: m.text, caption: m.caption, speaker: m.speaker,
  session_id: m.session_id, occurred_at: m.occurred_at, event_start: m.event_start,
  event_end: m.event_end, created_at: m.created_at,
  last_accessed_at: m.created_at, access_count: 0, external_id: m.external_id,
  external_key: m.external_key,
  content_hash: m.content_hash, importance: m.importance, pinned: m.pinned,
  category: m.category, fact_type: m.fact_type, kind: m.kind, vector_id: m.vector_id,
  embedding: m.embedding, embedding_model: m.embedding_model, topic_candidates: m.topic_candidates,
  repeat_of: m.repeat_of, redactions: m.redactions, own_text: m.own_text,
  own_embedding: m.own_embedding, domain: m.domain, seq: seq
})
WITH seq, epoch, count(mem) AS created
UNWIND CASE WHEN size($entities) = 0 THEN [null] ELSE $entities END AS x
FOREACH (_ IN CASE WHEN x IS NULL THEN [] ELSE [1] END |
  MERGE (e:Entity {user_id: $user_id, key: x.key})
  ON CREATE SET e.type = x.type, e.label = x.label, e.caption = x.label, e.aliases = [],
    e.mention_count = 0, e.first_seen = x.first_seen, e.last_seen = x.last_seen,
    e.unnamed = x.unnamed, e.plural = x.plural
  SET e.gender = coalesce(e.gender, x.gender),
    e.mention_count = e.mention_count + x.count,
    e.aliases = e.aliases + [a IN x.aliases WHERE NOT a IN e.aliases],
    e.first_seen = CASE WHEN x.first_seen < e.first_seen THEN x.first_seen ELSE e.first_seen END,
    e.last_seen = CASE WHEN x.last_seen > e.last_seen THEN x.last_seen ELSE e.last_seen END
  FOREACH (_ IN CASE WHEN x.type = 'person' THEN [1] ELSE [] END | SET e:Person)
  FOREACH (_ IN CASE WHEN x.type = 'place' THEN [1] ELSE [] END | SET e:Place)
  FOREACH (_ IN CASE WHEN x.type = 'org' THEN [1] ELSE [] END | SET e:Org)
  FOREACH (_ IN CASE WHEN x.type = 'project' THEN [1] ELSE [] END | SET e:Project)
  FOREACH (_ IN CASE WHEN x.type = 'event' THEN [1] ELSE [] END | SET e:Event)
  FOREACH (_ IN CASE WHEN x.type = 'topic' THEN [1] ELSE [] END | SET e:Topic)
  FOREACH (_ IN CASE WHEN x.type = 'pet' THEN [1] ELSE [] END | SET e:Pet)
  FOREACH (_ IN CASE WHEN x.type = 'work' THEN [1] ELSE [] END | SET e:Work)
  FOREACH (_ IN CASE WHEN x.type = 'language' THEN [1] ELSE [] END | SET e:Language)
  FOREACH (_ IN CASE WHEN x.type = 'agent' THEN [1] ELSE [] END | SET e:Agent)
)
WITH seq, epoch, created, count(*) AS _entities
UNWIND CASE WHEN size($mentions) = 0 THEN [null] ELSE $mentions END AS me
OPTIONAL MATCH (mem:Memory {user_id: $user_id, id: me.memory_id})
OPTIONAL MATCH (e:Entity {user_id: $user_id, key: me.key})
FOREACH (_ IN CASE WHEN mem IS NULL OR e IS NULL THEN [] ELSE [1] END |
  CREATE (mem)-[:MENTIONS {as_speaker: me.as_speaker}]->(e)
)
WITH seq, epoch, created, count(*) AS _mentions
UNWIND CASE WHEN size($next) = 0 THEN [null] ELSE $next END AS nx
OPTIONAL MATCH (before:Memory {user_id: $user_id, id: nx.from})
OPTIONAL MATCH (after:Memory {user_id: $user_id, id: nx.to})
FOREACH (_ IN CASE WHEN before IS NULL OR after IS NULL THEN [] ELSE [1] END |
  CREATE (before)-[:NEXT]->(after)
)
WITH seq, epoch, created, count(*) AS _next
UNWIND CASE WHEN size($sessions) = 0 THEN [null] ELSE $sessions END AS se
FOREACH (_ IN CASE WHEN se IS NULL THEN [] ELSE [1] END |
  MERGE (s:Session {user_id: $user_id, id: se.id})
  ON CREATE SET s.caption = se.id, s.turn_count = 0, s.started_at = se.started_at,
    s.last_turn_at = se.last_turn_at
  SET s.turn_count = s.turn_count + se.count, s.ended = false,
    s.started_at = CASE WHEN se.started_at < s.started_at THEN se.started_at ELSE s.started_at END,
    s.last_turn_at = CASE WHEN se.last_turn_at > s.last_turn_at THEN se.last_turn_at
      ELSE s.last_turn_at END
)
WITH seq, epoch, created, count(*) AS _sessions
UNWIND CASE WHEN size($in_session) = 0 THEN [null] ELSE $in_session END AS ins
OPTIONAL MATCH (turn:Memory {user_id: $user_id, id: ins.memory_id})
OPTIONAL MATCH (session:Session {user_id: $user_id, id: ins.session_id})
FOREACH (_ IN CASE WHEN turn IS NULL OR session IS NULL THEN [] ELSE [1] END |
  CREATE (turn)-[:IN_SESSION]->(session)
)
WITH seq, epoch, created, count(*) AS _in_session
UNWIND CASE WHEN size($relations) = 0 THEN [null] ELSE $relations END AS r
OPTIONAL MATCH (a:Entity {user_id: $user_id, key: r.src})
OPTIONAL MATCH (b:Entity {user_id: $user_id, key: r.dst})
WITH seq, epoch, created, r, a, b, CASE WHEN a IS NULL OR b IS NULL THEN '' ELSE r.type END AS t
FOREACH (_ IN CASE WHEN t = 'WORKS_AT' THEN [1] ELSE [] END |
  MERGE (a)-[x:WORKS_AT]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'WORKS_AS' THEN [1] ELSE [] END |
  MERGE (a)-[x:WORKS_AS]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'WORKS_ON' THEN [1] ELSE [] END |
  MERGE (a)-[x:WORKS_ON]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'STUDIES' THEN [1] ELSE [] END |
  MERGE (a)-[x:STUDIES]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'LIVES_IN' THEN [1] ELSE [] END |
  MERGE (a)-[x:LIVES_IN]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'MOVED_TO' THEN [1] ELSE [] END |
  MERGE (a)-[x:MOVED_TO]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'FROM' THEN [1] ELSE [] END |
  MERGE (a)-[x:FROM]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'VISITED' THEN [1] ELSE [] END |
  MERGE (a)-[x:VISITED]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'ATTENDED' THEN [1] ELSE [] END |
  MERGE (a)-[x:ATTENDED]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'MEMBER_OF' THEN [1] ELSE [] END |
  MERGE (a)-[x:MEMBER_OF]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'VOLUNTEERS_AT' THEN [1] ELSE [] END |
  MERGE (a)-[x:VOLUNTEERS_AT]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'SUPPORTS' THEN [1] ELSE [] END |
  MERGE (a)-[x:SUPPORTS]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'FAMILY_OF' THEN [1] ELSE [] END |
  MERGE (a)-[x:FAMILY_OF]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'PARTNER_OF' THEN [1] ELSE [] END |
  MERGE (a)-[x:PARTNER_OF]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'FRIEND_OF' THEN [1] ELSE [] END |
  MERGE (a)-[x:FRIEND_OF]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'HAS_PET' THEN [1] ELSE [] END |
  MERGE (a)-[x:HAS_PET]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'OWNS' THEN [1] ELSE [] END |
  MERGE (a)-[x:OWNS]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'LIKES' THEN [1] ELSE [] END |
  MERGE (a)-[x:LIKES]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'DISLIKES' THEN [1] ELSE [] END |
  MERGE (a)-[x:DISLIKES]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'PRACTICES' THEN [1] ELSE [] END |
  MERGE (a)-[x:PRACTICES]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'PLAYS' THEN [1] ELSE [] END |
  MERGE (a)-[x:PLAYS]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'MADE' THEN [1] ELSE [] END |
  MERGE (a)-[x:MADE]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'READ' THEN [1] ELSE [] END |
  MERGE (a)-[x:READ]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'WATCHED' THEN [1] ELSE [] END |
  MERGE (a)-[x:WATCHED]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'PLANS' THEN [1] ELSE [] END |
  MERGE (a)-[x:PLANS]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
FOREACH (_ IN CASE WHEN t = 'RELATED_TO' THEN [1] ELSE [] END |
  MERGE (a)-[x:RELATED_TO]->(b)
  ON CREATE SET x.user_id = $user_id, x.count = 0, x.strong = 0, x.evidence = [], x.first_seen = r.first_seen
  SET x.count = x.count + r.count, x.strong = x.strong + r.strong, x.evidence = x.evidence + r.evidence,
    x.last_seen = CASE WHEN r.last_seen > x.last_seen OR x.last_seen IS NULL THEN r.last_seen ELSE x.last_seen END,
    x.role = coalesce(r.role, x.role),
    x.valid_to = CASE WHEN x.ended_at IS NOT NULL AND r.last_seen > x.ended_at THEN null ELSE x.valid_to END)
WITH seq, epoch, created, count(*) AS _relations
// Changes of mind (extraction/endings.py): a fact a memory says stopped holding ("I quit the
// club", "we broke up", a dislike after a liking, a plan done) is history from the memory's time,
// if it was stated before it; ended_at keeps the earliest ending after its last statement, and
// ended_by the memory that said it (forgetting that memory undoes the ending).
// An ending of a known object binds both entities by key first, so the relation is found between
// them, not among every relation of the subject (the user's thousands); one of any object
// ("we broke up") reads the subject's relations.
UNWIND CASE WHEN size($endings) = 0 THEN [null] ELSE $endings END AS en
OPTIONAL MATCH (a:Entity {user_id: $user_id, key: en.src})
OPTIONAL MATCH (b:Entity {user_id: $user_id, key: en.dst})
OPTIONAL MATCH (a)-[x]->(b)
WHERE type(x) = en.type AND x.last_seen < en.at
FOREACH (_ IN CASE WHEN x IS NULL THEN [] ELSE [1] END |
  SET x.ended_by = CASE WHEN x.ended_at IS NULL OR x.ended_at < x.last_seen OR en.at < x.ended_at
      THEN en.memory_id ELSE x.ended_by END,
    x.ended_at = CASE WHEN x.ended_at IS NULL OR x.ended_at < x.last_seen OR en.at < x.ended_at
      THEN en.at ELSE x.ended_at END,
    x.valid_to = CASE WHEN x.valid_to IS NULL OR en.at < x.valid_to THEN en.at ELSE x.valid_to END)
WITH seq, epoch, created, count(*) AS _endings
UNWIND CASE WHEN size($endings_any) = 0 THEN [null] ELSE $endings_any END AS ea
OPTIONAL MATCH (a:Entity {user_id: $user_id, key: ea.src})-[x]->(:Entity {user_id: $user_id})
WHERE type(x) = ea.type AND x.last_seen < ea.at
FOREACH (_ IN CASE WHEN x IS NULL THEN [] ELSE [1] END |
  SET x.ended_by = CASE WHEN x.ended_at IS NULL OR x.ended_at < x.last_seen OR ea.at < x.ended_at
      THEN ea.memory_id ELSE x.ended_by END,
    x.ended_at = CASE WHEN x.ended_at IS NULL OR x.ended_at < x.last_seen OR ea.at < x.ended_at
      THEN ea.at ELSE x.ended_at END,
    x.valid_to = CASE WHEN x.valid_to IS NULL OR ea.at < x.valid_to THEN ea.at ELSE x.valid_to END)
WITH seq, epoch, created, count(*) AS _endings_any
// One value at a time (graph/vocabulary.py SINGLE_VALUED): for each source this batch states such
// a fact of, per group, a relation is valid from its first_seen until another value of the group
// is stated after its last_seen (that value's first_seen, or its last_seen when the two were
// stated in turns), or until it was ended after its last statement (ended_at); the newest value
// has no valid_to. Recomputed from the relations alone, so a batch that arrives out of event
// order still leaves the right history.
OPTIONAL MATCH (a:Entity {user_id: $user_id})-[x]->(:Entity {user_id: $user_id})
WHERE a.key IN $single_valued_sources AND type(x) IN $single_valued_types
WITH seq, epoch, created, a, [g IN $single_valued_groups WHERE type(x) IN g][0] AS g, collect(x) AS xs
FOREACH (x IN xs |
  SET x.valid_from = x.first_seen,
    x.valid_to = reduce(v = CASE WHEN x.ended_at > x.last_seen THEN x.ended_at ELSE null END, y IN xs |
      CASE WHEN y.last_seen > x.last_seen AND (v IS NULL OR
          (CASE WHEN y.first_seen > x.last_seen THEN y.first_seen ELSE y.last_seen END) < v)
        THEN (CASE WHEN y.first_seen > x.last_seen THEN y.first_seen ELSE y.last_seen END)
        ELSE v END))
WITH seq, epoch, created, count(*) AS _validity
// an earlier memory said again (graph/repeats.py): the new one names it in repeat_of, it counts
UNWIND CASE WHEN size($repeated) = 0 THEN [null] ELSE $repeated END AS rp
OPTIONAL MATCH (o:Memory {user_id: $user_id, id: rp.id})
FOREACH (_ IN CASE WHEN o IS NULL THEN [] ELSE [1] END |
  SET o.repeats = coalesce(o.repeats, 0) + rp.count)
WITH seq, epoch, created, count(*) AS _repeated
RETURN created, seq, epoch
