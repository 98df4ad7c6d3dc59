// One property per index: FalkorDB lacks composite indexes (a second index sharing a property is
// rejected as already indexed), and the planner combines single-property indexes.
CREATE INDEX FOR (u:UserSettings) ON (u.user_id)
