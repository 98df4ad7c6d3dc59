// One hop of the explorer's breadth-first walk (graph/neighbourhood.py): the entities next to the
// $frontier entities through relations that pass the view's filters, each once, strongest first
// (its strongest relation to the frontier, then the statements behind them, then its mentions),
// at most $limit of them. The caller drops the ones it has drawn already.
// Filters: $all_types, or the relation's type is in $types; $all_entity_types, or the neighbour's
// type is in $entity_types; with $current only facts that still hold (no valid_to); and the time
// the relation was seen or held overlaps [$since, $until] (a one-value-at-a-time fact that still
// holds lasts until now).
MATCH (e:Entity {user_id: $user_id})
WHERE e.key IN $frontier
MATCH (e)-[r]-(o:Entity {user_id: $user_id})
WHERE ($all_types OR type(r) IN $types)
  AND ($all_entity_types OR o.type IN $entity_types)
  AND (NOT $current OR r.valid_to IS NULL)
  AND coalesce(r.valid_from, r.first_seen, $since) <= $until
  AND CASE WHEN r.valid_from IS NOT NULL AND r.valid_to IS NULL THEN $until
    ELSE coalesce(r.valid_to, r.last_seen, $until) END >= $since
WITH o, max(coalesce(r.strong, 0)) AS strong, sum(coalesce(r.count, 0)) AS statements
RETURN o.key AS key, o.label AS label, o.type AS type, o.aliases AS aliases,
  o.mention_count AS mention_count, o.first_seen AS first_seen, o.last_seen AS last_seen,
  strong, statements
ORDER BY strong DESC, statements DESC, mention_count DESC, key
LIMIT $limit
