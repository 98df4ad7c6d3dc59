// One property per index: FalkorDB lacks composite indexes (a second index sharing a property is
// rejected as already indexed), and the planner combines single-property indexes.
CREATE INDEX FOR (m:Absorbed) ON (m.user_id)
