// One page of a user's entities ordered by key, optionally filtered by type and a search string
// (matched against the key, the lower-cased label and the lower-cased aliases: "mel" finds
// Melanie, known as Mel). Fetches one extra row to tell if more follow.
MATCH (e:Entity {user_id: $user_id})
WHERE ($type IS NULL OR e.type = $type)
  AND ($search IS NULL OR e.key CONTAINS $search OR toLower(e.label) CONTAINS $search
    OR any(alias IN coalesce(e.aliases, []) WHERE toLower(alias) CONTAINS $search))
  AND ($after IS NULL OR e.key > $after)
RETURN e.key AS key
ORDER BY e.key
LIMIT $limit
