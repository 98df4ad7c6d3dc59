// One property per index: FalkorDB lacks composite indexes (a second index sharing a property is
// rejected as already indexed), and the planner combines single-property indexes. A range index:
// memories_in_time reads a time window without scanning the user's history.
CREATE INDEX FOR (m:Memory) ON (m.event_start)
