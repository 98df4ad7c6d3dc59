// User-scoped reads and forgetUser seek here rather than scanning the label across every user.
CREATE INDEX knowledge_index_user IF NOT EXISTS FOR (k:KnowledgeIndex) ON (k.user_id)
