CREATE INDEX memory_event_end IF NOT EXISTS FOR (m:Memory) ON (m.event_end)
