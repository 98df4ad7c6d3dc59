CREATE INDEX memory_occurred_at IF NOT EXISTS FOR (m:Memory) ON (m.occurred_at)
