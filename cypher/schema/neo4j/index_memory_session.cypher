CREATE INDEX memory_session IF NOT EXISTS FOR (m:Memory) ON (m.user_id, m.session_id)
