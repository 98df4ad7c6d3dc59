// A merged-away stated fact keeps its user: reads of absorbed memories by id and forgetUser seek
// here rather than scanning the label across every user (graph/write/merge.py).
CREATE INDEX absorbed_user IF NOT EXISTS FOR (m:Absorbed) ON (m.user_id)
