// One property per index: FalkorDB lacks composite indexes (a second index sharing a property is
// rejected as already indexed), and the planner combines single-property indexes.
CREATE INDEX FOR (d:DayTally) ON (d.user_id)
