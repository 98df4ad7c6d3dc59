// Candidates for a message that names a time ("what did I do last weekend?"): memories whose event
// time (the time the text speaks of, resolved at write) overlaps [$start, $end), and memories said
// in it that name no time; newest first, at most $limit of each (the caller merges the two).
// Episodes are left out: they speak of a whole session. Two branches, each a range on indexed
// properties (event_start/event_end, occurred_at), so the read does not scan the user's whole
// history as one filter over both would.
MATCH (m:Memory)
WHERE m.event_end > $start AND m.event_start < $end AND m.user_id = $user_id
  AND coalesce(m.kind, 'turn') <> 'episode'
RETURN m.id AS id, m.occurred_at AS occurred_at
ORDER BY occurred_at DESC
LIMIT $limit
UNION ALL
MATCH (m:Memory)
WHERE m.occurred_at >= $start AND m.occurred_at < $end AND m.user_id = $user_id
  AND m.event_start IS NULL AND coalesce(m.kind, 'turn') <> 'episode'
RETURN m.id AS id, m.occurred_at AS occurred_at
ORDER BY occurred_at DESC
LIMIT $limit
