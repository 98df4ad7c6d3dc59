CREATE INDEX FOR (s:Session) ON (s.user_id, s.id)
