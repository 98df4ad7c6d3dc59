// Recomputes the validity of one user's one-value-at-a-time facts (graph/vocabulary.py
// SINGLE_VALUED) whose source is one of $sources, as write_memories.cypher does for a batch: per
// source and group, a relation is valid from its first_seen until another value of the group is
// stated after its last_seen, or until it was ended after it (ended_at, extraction/endings.py);
// the newest has no valid_to. Run after mergeEntities.
OPTIONAL MATCH (a:Entity {user_id: $user_id})-[x]->(:Entity {user_id: $user_id})
WHERE a.key IN $sources AND type(x) IN $single_valued_types
WITH a, [g IN $single_valued_groups WHERE type(x) IN g][0] AS g, collect(x) AS xs
FOREACH (x IN xs |
  SET x.valid_from = x.first_seen,
    x.valid_to = reduce(v = CASE WHEN x.ended_at > x.last_seen THEN x.ended_at ELSE null END, y IN xs |
      CASE WHEN y.last_seen > x.last_seen AND (v IS NULL OR
          (CASE WHEN y.first_seen > x.last_seen THEN y.first_seen ELSE y.last_seen END) < v)
        THEN (CASE WHEN y.first_seen > x.last_seen THEN y.first_seen ELSE y.last_seen END)
        ELSE v END))
WITH count(*) AS groups
// every other fact of the sources that was ended (extraction/endings.py) is history from its
// ending if that came after its last statement, else current again
OPTIONAL MATCH (a:Entity {user_id: $user_id})-[x]-(:Entity {user_id: $user_id})
WHERE a.key IN $sources AND x.ended_at IS NOT NULL AND NOT type(x) IN $single_valued_types
FOREACH (_ IN CASE WHEN x IS NULL THEN [] ELSE [1] END |
  SET x.valid_to = CASE WHEN x.ended_at > x.last_seen THEN x.ended_at ELSE null END)
WITH groups, count(*) AS _ended
RETURN groups
