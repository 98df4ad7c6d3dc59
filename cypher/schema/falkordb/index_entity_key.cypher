CREATE INDEX FOR (e:Entity) ON (e.user_id, e.key)
