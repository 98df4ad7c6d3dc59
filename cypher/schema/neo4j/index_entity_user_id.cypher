// User-scoped reads (a user's entities, memories, sessions) seek here: the composite
// uniqueness indexes on (user_id, …) are not used for user_id alone, and without this index each
// such read scanned the label across every user.
CREATE INDEX entity_user IF NOT EXISTS FOR (e:Entity) ON (e.user_id)
