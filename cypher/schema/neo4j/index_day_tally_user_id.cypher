// User-scoped reads and forgetUser seek here rather than scanning the label across every user.
CREATE INDEX day_tally_user IF NOT EXISTS FOR (d:DayTally) ON (d.user_id)
