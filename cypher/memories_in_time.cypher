// Candidates for a message that names a time ("what did I do last weekend?"): memories whose event
// time (the time the text speaks of, resolved at write) overlaps [$start, $end), or that were said
// in it when they name no time; newest first, at most $limit. Episodes are left out: they speak of
// a whole session.
MATCH (m:Memory {user_id: $user_id})
WHERE coalesce(m.kind, 'turn') <> 'episode'
  AND ((m.event_start IS NOT NULL AND m.event_start < $end AND m.event_end > $start)
    OR (m.event_start IS NULL AND m.occurred_at >= $start AND m.occurred_at < $end))
RETURN m.id AS id
ORDER BY m.occurred_at DESC
LIMIT $limit
