// The explorer's start (graph/neighbourhood.py): the entities among $keys that this user has, with
// what the page draws of each: label, type (its colour), mention_count (its size), aliases and the
// first and last time it was mentioned (epoch seconds).
MATCH (e:Entity {user_id: $user_id})
WHERE e.key IN $keys
RETURN e.key AS key, e.label AS label, e.type AS type, e.aliases AS aliases,
  e.mention_count AS mention_count, e.first_seen AS first_seen, e.last_seen AS last_seen
