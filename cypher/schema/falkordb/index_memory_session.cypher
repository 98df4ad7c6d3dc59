CREATE INDEX FOR (m:Memory) ON (m.user_id, m.session_id)
