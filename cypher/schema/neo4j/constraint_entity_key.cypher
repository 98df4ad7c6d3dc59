CREATE CONSTRAINT entity_user_key IF NOT EXISTS FOR (e:Entity) REQUIRE (e.user_id, e.key) IS UNIQUE
