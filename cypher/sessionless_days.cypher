// The UTC days (whole days since 1970) on which one user wrote turns without a sessionId: a
// rebuild (`refreshProfile`) tallies each of them again. Reads the user's sessionless turns.
MATCH (m:Memory {user_id: $user_id})
WHERE m.session_id IS NULL AND coalesce(m.kind, 'turn') = 'turn'
RETURN DISTINCT toInteger(floor(m.occurred_at / 86400.0)) AS day
ORDER BY day
