// User-scoped reads (a user's entities, memories, sessions) seek here: the composite
// uniqueness indexes on (user_id, …) are not used for user_id alone, and without this index each
// such read scanned the label across every user.
CREATE INDEX memory_user IF NOT EXISTS FOR (m:Memory) ON (m.user_id)
