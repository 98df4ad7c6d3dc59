CREATE CONSTRAINT change_log_user_id IF NOT EXISTS FOR (c:ChangeLog) REQUIRE c.user_id IS UNIQUE
