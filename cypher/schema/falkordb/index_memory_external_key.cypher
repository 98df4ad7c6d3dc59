// One property per index: FalkorDB lacks composite indexes (a second index sharing a property is
// rejected as already indexed), and the planner combines single-property indexes. The index
// under the uniqueness constraint on a memory's externalId digest (graph/executor.py UNIQUE).
CREATE INDEX FOR (m:Memory) ON (m.external_key)
