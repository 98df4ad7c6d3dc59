// User-scoped reads and forgetUser seek here rather than scanning the label across every user.
CREATE INDEX user_settings_user IF NOT EXISTS FOR (u:UserSettings) ON (u.user_id)
