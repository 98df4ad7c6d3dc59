// The newest memory (by ingest order) of each given session of one user: where a new batch's
// turns join the session's NEXT chain.
MATCH (m:Memory {user_id: $user_id})
WHERE m.session_id IN $sessions
WITH m.session_id AS session, m
ORDER BY m.created_at DESC
WITH session, collect(m.id) AS ids
RETURN session, ids[0] AS last
