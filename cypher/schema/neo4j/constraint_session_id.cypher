CREATE CONSTRAINT session_user_id IF NOT EXISTS FOR (s:Session) REQUIRE (s.user_id, s.id) IS UNIQUE
