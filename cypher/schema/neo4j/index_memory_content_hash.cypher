CREATE INDEX memory_content_hash IF NOT EXISTS FOR (m:Memory) ON (m.user_id, m.content_hash)
