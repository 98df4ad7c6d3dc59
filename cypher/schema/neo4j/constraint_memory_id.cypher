CREATE CONSTRAINT memory_user_id IF NOT EXISTS FOR (m:Memory) REQUIRE (m.user_id, m.id) IS UNIQUE
