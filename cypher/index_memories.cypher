// The memories the knowledge index counts — turns and stated facts of one user, or of one of their
// domains; the service's own episodes left out — with their times and session.
MATCH (m:Memory {user_id: $user_id})
WHERE ($domain IS NULL OR m.domain = $domain) AND coalesce(m.kind, 'turn') = 'turn'
RETURN m.id AS id, m.occurred_at AS occurred_at, m.event_start AS event_start,
  m.session_id AS session_id
