CREATE INDEX memory_event_start IF NOT EXISTS FOR (m:Memory) ON (m.event_start)
