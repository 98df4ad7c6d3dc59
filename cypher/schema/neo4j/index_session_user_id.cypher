// User-scoped reads (a user's entities, memories, sessions) seek here: the composite
// uniqueness indexes on (user_id, …) are not used for user_id alone, and without this index each
// such read scanned the label across every user.
CREATE INDEX session_user IF NOT EXISTS FOR (s:Session) ON (s.user_id)
