// Answers: what does the explorer page (GET /explore) show? The entities it draws and the typed
// relations among them that pass its filters, as nodes and paths that Neo4j Browser draws the
// same way. The page's "Cypher for Browser" button fills in the parameters of its current view.
// Browser's "Connect result nodes" setting adds every other relation among these entities too:
// turn it off to see exactly the page's view.
// Parameters: $userId (whose graph, e.g. 'alice'), $keys (the entity keys drawn), $types (relation
// types kept, null for all), $current (true: only facts that still hold), $since and $until
// (epoch seconds, or null: only relations seen or held in between).
MATCH (e:Entity {user_id: $userId})
WHERE e.key IN $keys
OPTIONAL MATCH p = (e)-[r]->(o:Entity {user_id: $userId})
WHERE o.key IN $keys
  AND ($types IS NULL OR type(r) IN $types)
  AND (NOT $current OR r.valid_to IS NULL)
  AND ($until IS NULL OR coalesce(r.valid_from, r.first_seen) <= $until)
  AND ($since IS NULL OR CASE WHEN r.valid_from IS NOT NULL AND r.valid_to IS NULL THEN $since
    ELSE coalesce(r.valid_to, r.last_seen) END >= $since)
RETURN e, p
