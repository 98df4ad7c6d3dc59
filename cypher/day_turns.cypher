// The turns one user wrote without a sessionId whose occurredAt falls in [$start, $end) (one UTC
// day), in the order said: the day's profile tally is made of them (graph/profile/tally.py). A
// range on the indexed occurred_at, so the read does not scan the user's history.
MATCH (m:Memory)
WHERE m.occurred_at >= $start AND m.occurred_at < $end AND m.user_id = $user_id
  AND m.session_id IS NULL AND coalesce(m.kind, 'turn') = 'turn'
RETURN m.id AS id, m.occurred_at AS occurred_at
ORDER BY occurred_at, m.created_at, id
