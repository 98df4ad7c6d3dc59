// How many entities match the filters of list_entities (for totalCount).
MATCH (e:Entity {user_id: $user_id})
WHERE ($type IS NULL OR e.type = $type)
  AND ($search IS NULL OR e.key CONTAINS $search OR toLower(e.label) CONTAINS $search
    OR any(alias IN coalesce(e.aliases, []) WHERE toLower(alias) CONTAINS $search))
RETURN count(e) AS total
