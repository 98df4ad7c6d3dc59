CREATE INDEX memory_external_id IF NOT EXISTS FOR (m:Memory) ON (m.user_id, m.external_id)
