// User-scoped reads and forgetUser seek here rather than scanning the label across every user.
CREATE INDEX expertise_user IF NOT EXISTS FOR (x:Expertise) ON (x.user_id)
