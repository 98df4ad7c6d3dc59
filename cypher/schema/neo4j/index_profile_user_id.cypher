// User-scoped reads and forgetUser seek here rather than scanning the label across every user.
CREATE INDEX profile_user IF NOT EXISTS FOR (p:Profile) ON (p.user_id)
